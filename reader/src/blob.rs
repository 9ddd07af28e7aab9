//! Opening a reflection blob: header, table directory, tables, and every index in them.

use crate::error::{err, ErrorKind as K, Result};
use crate::package::OpenCx;
use crate::storage::{cast, resolve, Loc};
use slangpack_format::*;
use zerocopy::FromBytes;

/// Number of table kinds this version knows (kinds `1..=TABLE_KINDS`).
pub(crate) const TABLE_KINDS: usize = 31;

/// A validated reflection blob: where each known table is, and its header scalars.
#[derive(Debug)]
pub(crate) struct BlobInfo {
    /// Location of each known table (packed records), indexed by `kind - 1`.
    pub(crate) tables: [Loc; TABLE_KINDS],
    /// Arena offset of this blob's string bytes.
    pub(crate) string_base: usize,
    /// The whole (decompressed) blob.
    pub(crate) whole: Loc,
    /// The header (its known prefix).
    pub(crate) header: ReflectionHeader,
}

/// The blob of an entry without reflection: every table empty, every scalar absent.
pub(crate) static EMPTY_BLOB: BlobInfo = BlobInfo {
    tables: [Loc::EMPTY; TABLE_KINDS],
    string_base: 0,
    whole: Loc::EMPTY,
    header: ReflectionHeader::EMPTY,
};

pub(crate) fn slot(kind: TableKind) -> usize {
    (kind.to_raw() as usize).wrapping_sub(1)
}

fn table_name(kind: TableKind) -> &'static str {
    match kind {
        TableKind::Types => "types",
        TableKind::TypeLayouts => "type_layouts",
        TableKind::Variables => "variables",
        TableKind::VarLayouts => "var_layouts",
        TableKind::Functions => "functions",
        TableKind::Generics => "generics",
        TableKind::Decls => "decls",
        TableKind::EntryPoints => "entry_points",
        TableKind::Attributes => "attributes",
        TableKind::AttributeArgs => "attribute_args",
        TableKind::Modifiers => "modifiers",
        TableKind::HashedStrings => "hashed_strings",
        TableKind::BindingRanges => "binding_ranges",
        TableKind::DescriptorSets => "descriptor_sets",
        TableKind::DescriptorRanges => "descriptor_ranges",
        TableKind::SubObjectRanges => "sub_object_ranges",
        TableKind::U32Pool => "u32_pool",
        TableKind::StringRefs => "string_refs",
        TableKind::StringBytes => "string_bytes",
        TableKind::BindSummary => "bind_summary",
        TableKind::DescriptorBindings => "descriptor_bindings",
        TableKind::DescriptorSetLayouts => "descriptor_set_layouts",
        TableKind::PushConstantRanges => "push_constant_ranges",
        TableKind::BufferLayouts => "buffer_layouts",
        TableKind::BufferMembers => "buffer_members",
        TableKind::MemberAttributes => "member_attributes",
        TableKind::VertexInputs => "vertex_inputs",
        TableKind::SpecializationConstants => "specialization_constants",
        TableKind::NameIndex => "name_index",
        TableKind::ShaderRecordBlocks => "shader_record_blocks",
        TableKind::TargetBindings => "target_bindings",
        TableKind::Unknown(_) => "unknown",
    }
}

/// Parses and validates the reflection blob in section `section` (raw bytes at `raw`).
pub(crate) fn parse_blob(
    file: &[u8],
    cx: &mut OpenCx,
    raw: Loc,
    section: usize,
    section_offset: u64,
) -> Result<BlobInfo> {
    let what = format!("section {section} (reflection)");
    let bytes = resolve(file, &cx.chunks, raw);
    let blob_len = bytes.len() as u64;
    if bytes.get(..4) != Some(&REFLECTION_MAGIC[..]) {
        return Err(err(
            K::BadMagic,
            section_offset,
            format!("{what}: expected magic \"SPRF\""),
        ));
    }
    let header = ReflectionHeader::read_from_prefix(bytes)
        .map(|(h, _)| h)
        .map_err(|_| {
            err(
                K::Truncated,
                section_offset,
                format!("{what}: {blob_len} bytes, shorter than the header"),
            )
        })?;
    if header.header_size < 64 || u64::from(header.header_size) > blob_len {
        return Err(err(
            K::BadHeader,
            section_offset + 4,
            format!("{what}: header size {}", header.header_size),
        ));
    }
    let rec_size = header.table_record_size;
    if rec_size < 16 || rec_size % 4 != 0 || rec_size > limits::MAX_RECORD_STRIDE {
        return Err(err(
            K::BadStride,
            section_offset + 16,
            format!("{what}: table record size {rec_size}, expected at least 16"),
        ));
    }
    if header.table_count > limits::MAX_TABLES {
        return Err(err(
            K::LimitExceeded,
            section_offset + 12,
            format!(
                "{what}: {} tables, limit {}",
                header.table_count,
                limits::MAX_TABLES
            ),
        ));
    }
    let dir_off = u64::from(header.table_dir_offset);
    if dir_off % 4 != 0 {
        return Err(err(
            K::Misaligned,
            section_offset + 8,
            format!("{what}: table directory offset {dir_off} is not a multiple of 4"),
        ));
    }
    let dir_end = dir_off + u64::from(header.table_count) * u64::from(rec_size);
    if dir_off < u64::from(header.header_size) || dir_end > blob_len {
        return Err(err(
            K::OutOfBounds,
            section_offset + 8,
            format!(
                "{what}: table directory {dir_off}..{dir_end} outside the blob ({blob_len} bytes)"
            ),
        ));
    }
    let mut dir = Vec::with_capacity(header.table_count as usize);
    if let Some(dir_bytes) = bytes.get(dir_off as usize..dir_end as usize) {
        for rec in dir_bytes.chunks_exact(rec_size as usize) {
            if let Ok((r, _)) = TableDirRecord::read_from_prefix(rec) {
                dir.push(r);
            }
        }
    }

    let mut raw_tables: [Option<TableDirRecord>; TABLE_KINDS] = [None; TABLE_KINDS];
    for (i, t) in dir.iter().enumerate() {
        let kind = TableKind::from_raw(t.kind);
        if let TableKind::Unknown(_) = kind {
            continue; // a newer minor version's table
        }
        let at = section_offset + dir_off + i as u64 * u64::from(rec_size);
        let name = table_name(kind);
        if t.offset % 4 != 0 {
            return Err(err(
                K::Misaligned,
                at,
                format!(
                    "{what}: table {name} offset {} is not a multiple of 4",
                    t.offset
                ),
            ));
        }
        let end = u64::from(t.offset) + u64::from(t.count) * u64::from(t.stride);
        if u64::from(t.offset) < dir_end || end > blob_len {
            return Err(err(K::OutOfBounds, at, format!("{what}: table {name} ({}..{end}) outside the blob's data ({dir_end}..{blob_len})", t.offset)));
        }
        let entry = raw_tables.get_mut(slot(kind));
        match entry {
            Some(Some(_)) => {
                return Err(err(
                    K::Duplicate,
                    at,
                    format!("{what}: a second {name} table"),
                ));
            }
            Some(e) => *e = Some(*t),
            None => {}
        }
    }

    let mut tables = [Loc::EMPTY; TABLE_KINDS];
    for (k, t) in raw_tables.iter().enumerate() {
        let Some(t) = t else { continue };
        let kind = TableKind::from_raw(k as u32 + 1);
        let name = format!("{what}: table {}", table_name(kind));
        let loc = raw.sub(
            t.offset as usize,
            (u64::from(t.count) * u64::from(t.stride)) as usize,
        );
        let at = section_offset + u64::from(t.offset);
        let (c, s) = (t.count, t.stride);
        let packed = match kind {
            TableKind::Types => cx.table::<Type>(file, loc, c, s, at, &name),
            TableKind::TypeLayouts => cx.table::<TypeLayout>(file, loc, c, s, at, &name),
            TableKind::Variables => cx.table::<Variable>(file, loc, c, s, at, &name),
            TableKind::VarLayouts => cx.table::<VarLayout>(file, loc, c, s, at, &name),
            TableKind::Functions => cx.table::<Function>(file, loc, c, s, at, &name),
            TableKind::Generics => cx.table::<Generic>(file, loc, c, s, at, &name),
            TableKind::Decls => cx.table::<Decl>(file, loc, c, s, at, &name),
            TableKind::EntryPoints => cx.table::<EntryPointLayout>(file, loc, c, s, at, &name),
            TableKind::Attributes => cx.table::<Attribute>(file, loc, c, s, at, &name),
            TableKind::AttributeArgs => cx.table::<AttributeArg>(file, loc, c, s, at, &name),
            TableKind::Modifiers => cx.table::<Modifier>(file, loc, c, s, at, &name),
            TableKind::HashedStrings => cx.table::<HashedString>(file, loc, c, s, at, &name),
            TableKind::BindingRanges => cx.table::<BindingRange>(file, loc, c, s, at, &name),
            TableKind::DescriptorSets => cx.table::<DescriptorSet>(file, loc, c, s, at, &name),
            TableKind::DescriptorRanges => cx.table::<DescriptorRange>(file, loc, c, s, at, &name),
            TableKind::SubObjectRanges => cx.table::<SubObjectRange>(file, loc, c, s, at, &name),
            TableKind::U32Pool => cx.table::<u32>(file, loc, c, s, at, &name),
            TableKind::StringRefs => cx.table::<StringRef>(file, loc, c, s, at, &name),
            TableKind::BindSummary => cx.table::<bind::BindSummary>(file, loc, c, s, at, &name),
            TableKind::DescriptorBindings => {
                cx.table::<bind::DescriptorBinding>(file, loc, c, s, at, &name)
            }
            TableKind::DescriptorSetLayouts => {
                cx.table::<bind::DescriptorSetLayout>(file, loc, c, s, at, &name)
            }
            TableKind::PushConstantRanges => {
                cx.table::<bind::PushConstantRange>(file, loc, c, s, at, &name)
            }
            TableKind::BufferLayouts => cx.table::<bind::BufferLayout>(file, loc, c, s, at, &name),
            TableKind::BufferMembers => cx.table::<bind::BufferMember>(file, loc, c, s, at, &name),
            TableKind::MemberAttributes => {
                cx.table::<bind::MemberAttribute>(file, loc, c, s, at, &name)
            }
            TableKind::VertexInputs => cx.table::<bind::VertexInput>(file, loc, c, s, at, &name),
            TableKind::SpecializationConstants => {
                cx.table::<bind::SpecializationConstant>(file, loc, c, s, at, &name)
            }
            TableKind::NameIndex => cx.table::<bind::NameIndexSlot>(file, loc, c, s, at, &name),
            TableKind::ShaderRecordBlocks => {
                cx.table::<bind::ShaderRecordBlock>(file, loc, c, s, at, &name)
            }
            TableKind::TargetBindings => {
                cx.table::<slangpack_format::targets::TargetBinding>(file, loc, c, s, at, &name)
            }
            TableKind::StringBytes | TableKind::Unknown(_) => {
                cx.table::<u8>(file, loc, c, s, at, &name)
            }
        }?;
        if let Some(dst) = tables.get_mut(k) {
            *dst = packed;
        }
    }

    // Strings: copy the bytes into the arena after checking UTF-8 and every reference.
    let refs: Vec<StringRef> = {
        let r = tables
            .get(slot(TableKind::StringRefs))
            .copied()
            .unwrap_or(Loc::EMPTY);
        cast::<StringRef>(resolve(file, &cx.chunks, r)).to_vec()
    };
    let text: Vec<u8> = {
        let b = tables
            .get(slot(TableKind::StringBytes))
            .copied()
            .unwrap_or(Loc::EMPTY);
        resolve(file, &cx.chunks, b).to_vec()
    };
    let string_base = cx.string_pool(&refs, &text, section_offset, &what)?;

    let blob = BlobInfo {
        tables,
        string_base,
        whole: raw,
        header,
    };
    Checker::new(file, &cx.chunks, &blob, &what, section_offset).check_all()?;
    Ok(blob)
}

/// A record being checked, for error messages.
#[derive(Clone, Copy)]
struct Rec {
    table: TableKind,
    index: usize,
}

/// Checks every index field of a blob against the table lengths.
struct Checker<'b> {
    file: &'b [u8],
    chunks: &'b [Box<[u64]>],
    blob: &'b BlobInfo,
    what: &'b str,
    offset: u64,
    counts: [u64; TABLE_KINDS],
    pool: &'b [u32],
    /// Pool words index-checked so far; bounded so that validation stays linear in the blob.
    pool_checks: std::cell::Cell<u64>,
}

impl<'b> Checker<'b> {
    fn new(
        file: &'b [u8],
        chunks: &'b [Box<[u64]>],
        blob: &'b BlobInfo,
        what: &'b str,
        offset: u64,
    ) -> Self {
        let sizes: [usize; TABLE_KINDS] = [
            size_of::<Type>(),
            size_of::<TypeLayout>(),
            size_of::<Variable>(),
            size_of::<VarLayout>(),
            size_of::<Function>(),
            size_of::<Generic>(),
            size_of::<Decl>(),
            size_of::<EntryPointLayout>(),
            size_of::<Attribute>(),
            size_of::<AttributeArg>(),
            size_of::<Modifier>(),
            size_of::<HashedString>(),
            size_of::<BindingRange>(),
            size_of::<DescriptorSet>(),
            size_of::<DescriptorRange>(),
            size_of::<SubObjectRange>(),
            size_of::<u32>(),
            size_of::<StringRef>(),
            1,
            size_of::<bind::BindSummary>(),
            size_of::<bind::DescriptorBinding>(),
            size_of::<bind::DescriptorSetLayout>(),
            size_of::<bind::PushConstantRange>(),
            size_of::<bind::BufferLayout>(),
            size_of::<bind::BufferMember>(),
            size_of::<bind::MemberAttribute>(),
            size_of::<bind::VertexInput>(),
            size_of::<bind::SpecializationConstant>(),
            size_of::<bind::NameIndexSlot>(),
            size_of::<bind::ShaderRecordBlock>(),
            size_of::<slangpack_format::targets::TargetBinding>(),
        ];
        let mut counts = [0u64; TABLE_KINDS];
        for ((c, loc), size) in counts.iter_mut().zip(&blob.tables).zip(sizes) {
            *c = (loc.len() / size) as u64;
        }
        let pool_loc = blob
            .tables
            .get(slot(TableKind::U32Pool))
            .copied()
            .unwrap_or(Loc::EMPTY);
        let pool = cast::<u32>(resolve(file, chunks, pool_loc));
        Self {
            file,
            chunks,
            blob,
            what,
            offset,
            counts,
            pool,
            pool_checks: std::cell::Cell::new(0),
        }
    }

    fn table<T: FromBytes + zerocopy::KnownLayout + zerocopy::Immutable>(
        &self,
        kind: TableKind,
    ) -> &'b [T] {
        let loc = self
            .blob
            .tables
            .get(slot(kind))
            .copied()
            .unwrap_or(Loc::EMPTY);
        cast(resolve(self.file, self.chunks, loc))
    }

    fn count(&self, kind: TableKind) -> u64 {
        self.counts.get(slot(kind)).copied().unwrap_or(0)
    }

    #[cold]
    fn fail(&self, rec: Rec, field: &str, detail: String) -> crate::Error {
        err(
            K::IndexOutOfRange,
            self.offset,
            format!(
                "{}: {}[{}].{field} {detail}",
                self.what,
                table_name(rec.table),
                rec.index
            ),
        )
    }

    /// `value` is absent or indexes `target`.
    fn idx(&self, rec: Rec, field: &str, value: u32, target: TableKind) -> Result<()> {
        if value == ABSENT || u64::from(value) < self.count(target) {
            Ok(())
        } else {
            Err(self.fail(
                rec,
                field,
                format!("= {value}, expected < {} or absent", self.count(target)),
            ))
        }
    }

    /// `first..first + count` lies within `target`.
    fn range(
        &self,
        rec: Rec,
        field: &str,
        first: u32,
        count: u32,
        target: TableKind,
    ) -> Result<()> {
        if count == 0 || u64::from(first) + u64::from(count) <= self.count(target) {
            Ok(())
        } else {
            Err(self.fail(
                rec,
                field,
                format!(
                    "range {first}+{count} exceeds {} records of {}",
                    self.count(target),
                    table_name(target)
                ),
            ))
        }
    }

    /// The pool slice `off..off + count * per` lies within the pool.
    fn pool(&self, rec: Rec, field: &str, off: u32, count: u32, per: u64) -> Result<&'b [u32]> {
        if count == 0 {
            return Ok(&[]);
        }
        let end = u64::from(off) + u64::from(count) * per;
        self.pool
            .get(off as usize..end as usize)
            .filter(|_| end <= self.pool.len() as u64)
            .ok_or_else(|| {
                self.fail(
                    rec,
                    field,
                    format!(
                        "pool slice {off}..{end} exceeds the pool ({} words)",
                        self.pool.len()
                    ),
                )
            })
    }

    /// The pool slice holds `count` indices into `target` (absent not allowed).
    fn pool_idx(
        &self,
        rec: Rec,
        field: &str,
        off: u32,
        count: u32,
        target: TableKind,
    ) -> Result<()> {
        let n = self.count(target);
        let words = self.pool(rec, field, off, count, 1)?;
        // Many records may name the same long slice; checking each naming again would make
        // open quadratic in a hostile blob. Real blobs name each slice a few times at most.
        let checks = self.pool_checks.get() + words.len() as u64;
        let budget =
            limits::POOL_CHECK_FACTOR * self.pool.len() as u64 + limits::POOL_CHECK_ALLOWANCE;
        if checks > budget {
            return Err(err(
                K::LimitExceeded,
                self.offset,
                format!(
                    "{}: {}[{}].{field}: the blob's records name {checks} pool words, more than \
                     {} times its pool of {} words",
                    self.what,
                    table_name(rec.table),
                    rec.index,
                    limits::POOL_CHECK_FACTOR,
                    self.pool.len()
                ),
            ));
        }
        self.pool_checks.set(checks);
        for &v in words {
            if u64::from(v) >= n {
                return Err(self.fail(rec, field, format!("list holds {v}, expected < {n}")));
            }
        }
        Ok(())
    }

    fn check_all(&self) -> Result<()> {
        use TableKind as T;
        let s = T::StringRefs;
        let r = |table, index| Rec { table, index };
        for (i, t) in self.table::<Type>(T::Types).iter().enumerate() {
            let r = r(T::Types, i);
            self.idx(r, "name", t.name, s)?;
            self.idx(r, "full_name", t.full_name, s)?;
            self.idx(r, "element_type", t.element_type, T::Types)?;
            self.idx(r, "resource_result_type", t.resource_result_type, T::Types)?;
            self.pool_idx(r, "field_pool", t.field_pool, t.field_count, T::Variables)?;
            self.range(
                r,
                "attribute_first",
                t.attribute_first,
                t.attribute_count,
                T::Attributes,
            )?;
            self.idx(r, "generic_container", t.generic_container, T::Generics)?;
        }
        for (i, t) in self.table::<TypeLayout>(T::TypeLayouts).iter().enumerate() {
            let r = r(T::TypeLayouts, i);
            self.idx(r, "type_index", t.type_index, T::Types)?;
            self.pool(r, "category_pool", t.category_pool, t.category_count, 1)?;
            self.pool(r, "size_pool", t.size_pool, t.category_count, 3)?;
            self.pool_idx(r, "field_pool", t.field_pool, t.field_count, T::VarLayouts)?;
            self.idx(
                r,
                "element_type_layout",
                t.element_type_layout,
                T::TypeLayouts,
            )?;
            self.idx(r, "element_var_layout", t.element_var_layout, T::VarLayouts)?;
            self.idx(
                r,
                "container_var_layout",
                t.container_var_layout,
                T::VarLayouts,
            )?;
            self.idx(
                r,
                "explicit_counter_var_layout",
                t.explicit_counter_var_layout,
                T::VarLayouts,
            )?;
            self.range(
                r,
                "binding_range_first",
                t.binding_range_first,
                t.binding_range_count,
                T::BindingRanges,
            )?;
            self.range(
                r,
                "descriptor_set_first",
                t.descriptor_set_first,
                t.descriptor_set_count,
                T::DescriptorSets,
            )?;
            self.range(
                r,
                "sub_object_range_first",
                t.sub_object_range_first,
                t.sub_object_range_count,
                T::SubObjectRanges,
            )?;
        }
        for (i, v) in self.table::<Variable>(T::Variables).iter().enumerate() {
            let r = r(T::Variables, i);
            self.idx(r, "name", v.name, s)?;
            self.idx(r, "type_index", v.type_index, T::Types)?;
            self.range(
                r,
                "modifier_first",
                v.modifier_first,
                v.modifier_count,
                T::Modifiers,
            )?;
            self.range(
                r,
                "attribute_first",
                v.attribute_first,
                v.attribute_count,
                T::Attributes,
            )?;
            if v.default_value_kind() == ValueKind::String {
                self.idx(r, "default_lo", v.default_lo, s)?;
            }
            self.idx(r, "generic_container", v.generic_container, T::Generics)?;
        }
        for (i, v) in self.table::<VarLayout>(T::VarLayouts).iter().enumerate() {
            let r = r(T::VarLayouts, i);
            self.idx(r, "variable", v.variable, T::Variables)?;
            self.idx(r, "type_layout", v.type_layout, T::TypeLayouts)?;
            self.idx(r, "name", v.name, s)?;
            self.pool(r, "category_pool", v.category_pool, v.category_count, 1)?;
            self.pool(r, "offset_pool", v.offset_pool, v.category_count, 1)?;
            self.pool(r, "space_pool", v.space_pool, v.category_count, 1)?;
            self.idx(r, "semantic_name", v.semantic_name, s)?;
        }
        for (i, f) in self.table::<Function>(T::Functions).iter().enumerate() {
            let r = r(T::Functions, i);
            self.idx(r, "name", f.name, s)?;
            self.idx(r, "return_type", f.return_type, T::Types)?;
            self.pool_idx(
                r,
                "parameter_pool",
                f.parameter_pool,
                f.parameter_count,
                T::Variables,
            )?;
            self.range(
                r,
                "modifier_first",
                f.modifier_first,
                f.modifier_count,
                T::Modifiers,
            )?;
            self.range(
                r,
                "attribute_first",
                f.attribute_first,
                f.attribute_count,
                T::Attributes,
            )?;
            self.idx(r, "generic_container", f.generic_container, T::Generics)?;
        }
        for (i, g) in self.table::<Generic>(T::Generics).iter().enumerate() {
            let r = r(T::Generics, i);
            self.idx(r, "name", g.name, s)?;
            self.idx(r, "inner_decl", g.inner_decl, T::Decls)?;
            self.idx(r, "outer_generic", g.outer_generic, T::Generics)?;
            self.pool_idx(
                r,
                "type_parameter_pool",
                g.type_parameter_pool,
                g.type_parameter_count,
                T::Variables,
            )?;
            self.pool_idx(
                r,
                "value_parameter_pool",
                g.value_parameter_pool,
                g.value_parameter_count,
                T::Variables,
            )?;
            let pairs = self.pool(
                r,
                "constraint_pool",
                g.constraint_pool,
                g.constraint_count,
                2,
            )?;
            for pair in pairs.chunks_exact(2) {
                if let [param, ty] = *pair {
                    if u64::from(param) >= self.count(T::Variables)
                        || u64::from(ty) >= self.count(T::Types)
                    {
                        return Err(self.fail(
                            r,
                            "constraint_pool",
                            format!("pair ({param}, {ty}) out of range"),
                        ));
                    }
                }
            }
        }
        for (i, d) in self.table::<Decl>(T::Decls).iter().enumerate() {
            let r = r(T::Decls, i);
            self.idx(r, "name", d.name, s)?;
            self.idx(r, "parent", d.parent, T::Decls)?;
            self.pool_idx(r, "child_pool", d.child_pool, d.child_count, T::Decls)?;
            let payload_table = match d.decl_kind() {
                DeclKind::Struct | DeclKind::Enum => Some(T::Types),
                DeclKind::Func => Some(T::Functions),
                DeclKind::Generic => Some(T::Generics),
                DeclKind::Variable => Some(T::Variables),
                _ => None,
            };
            if let Some(target) = payload_table {
                self.idx(r, "payload", d.payload, target)?;
            }
        }
        for (i, e) in self
            .table::<EntryPointLayout>(T::EntryPoints)
            .iter()
            .enumerate()
        {
            let r = r(T::EntryPoints, i);
            self.idx(r, "name", e.name, s)?;
            self.idx(r, "name_override", e.name_override, s)?;
            self.pool_idx(
                r,
                "parameter_pool",
                e.parameter_pool,
                e.parameter_count,
                T::VarLayouts,
            )?;
            self.idx(r, "var_layout", e.var_layout, T::VarLayouts)?;
            self.idx(r, "result_var_layout", e.result_var_layout, T::VarLayouts)?;
            self.idx(r, "function", e.function, T::Functions)?;
        }
        for (i, a) in self.table::<Attribute>(T::Attributes).iter().enumerate() {
            let r = r(T::Attributes, i);
            self.idx(r, "name", a.name, s)?;
            self.range(r, "arg_first", a.arg_first, a.arg_count, T::AttributeArgs)?;
        }
        for (i, a) in self
            .table::<AttributeArg>(T::AttributeArgs)
            .iter()
            .enumerate()
        {
            let r = r(T::AttributeArgs, i);
            if a.value_kind() == ValueKind::String {
                self.idx(r, "value_lo", a.value_lo, s)?;
            }
            self.idx(r, "type_index", a.type_index, T::Types)?;
        }
        for (i, h) in self
            .table::<HashedString>(T::HashedStrings)
            .iter()
            .enumerate()
        {
            let r = r(T::HashedStrings, i);
            if u64::from(h.string) >= self.count(s) {
                return Err(self.fail(
                    r,
                    "string",
                    format!("= {}, expected < {}", h.string, self.count(s)),
                ));
            }
        }
        for (i, b) in self
            .table::<BindingRange>(T::BindingRanges)
            .iter()
            .enumerate()
        {
            let r = r(T::BindingRanges, i);
            self.idx(r, "leaf_type_layout", b.leaf_type_layout, T::TypeLayouts)?;
            self.idx(r, "leaf_variable", b.leaf_variable, T::Variables)?;
            self.idx(r, "descriptor_set", b.descriptor_set, T::DescriptorSets)?;
            self.range(
                r,
                "first_descriptor_range",
                b.first_descriptor_range,
                b.descriptor_range_count,
                T::DescriptorRanges,
            )?;
            self.idx(
                r,
                "sub_object_range",
                b.sub_object_range,
                T::SubObjectRanges,
            )?;
        }
        for (i, d) in self
            .table::<DescriptorSet>(T::DescriptorSets)
            .iter()
            .enumerate()
        {
            let r = r(T::DescriptorSets, i);
            self.range(
                r,
                "descriptor_range_first",
                d.descriptor_range_first,
                d.descriptor_range_count,
                T::DescriptorRanges,
            )?;
        }
        for (i, o) in self
            .table::<SubObjectRange>(T::SubObjectRanges)
            .iter()
            .enumerate()
        {
            let r = r(T::SubObjectRanges, i);
            self.idx(r, "binding_range", o.binding_range, T::BindingRanges)?;
            self.idx(r, "offset_var_layout", o.offset_var_layout, T::VarLayouts)?;
        }
        let h = &self.blob.header;
        let hr = Rec {
            table: TableKind::Unknown(0),
            index: 0,
        };
        let header_checks = [
            (
                "global_params_var_layout",
                h.global_params_var_layout,
                T::VarLayouts,
            ),
            (
                "global_params_type_layout",
                h.global_params_type_layout,
                T::TypeLayouts,
            ),
            ("root_decl", h.root_decl, T::Decls),
        ];
        for (field, value, target) in header_checks {
            self.idx(hr, field, value, target).map_err(|_| {
                err(
                    K::IndexOutOfRange,
                    self.offset,
                    format!("{}: header {field} = {value} out of range", self.what),
                )
            })?;
        }
        self.check_bind()?;
        self.check_target_bindings()?;
        Ok(())
    }

    /// The per-target bind views (kind 30): string and binding indices in range, sorted by
    /// target, space, register class, index.
    fn check_target_bindings(&self) -> Result<()> {
        use slangpack_format::targets::TargetBinding;
        use TableKind as T;
        let records = self.table::<TargetBinding>(T::TargetBindings);
        let mut last = None;
        for (i, b) in records.iter().enumerate() {
            let r = Rec {
                table: T::TargetBindings,
                index: i,
            };
            self.idx(r, "path", b.path, T::StringRefs)?;
            self.idx(r, "code_name", b.code_name, T::StringRefs)?;
            self.idx(r, "binding", b.binding, T::DescriptorBindings)?;
            let key = (b.target, b.space, b.register_class, b.index);
            if last.is_some_and(|l| l > key) {
                return Err(self.fail(
                    r,
                    "target",
                    "records not sorted by target, space, register class, index".into(),
                ));
            }
            last = Some(key);
        }
        Ok(())
    }

    /// The bind-view tables (kinds 20..=30).
    fn check_bind(&self) -> Result<()> {
        use bind::*;
        use TableKind as T;
        let s = T::StringRefs;
        let r = |table, index| Rec { table, index };
        for (i, b) in self.table::<BindSummary>(T::BindSummary).iter().enumerate() {
            let r = r(T::BindSummary, i);
            self.idx(
                r,
                "global_uniform_binding",
                b.global_uniform_binding,
                T::DescriptorBindings,
            )?;
        }
        for (i, b) in self
            .table::<DescriptorBinding>(T::DescriptorBindings)
            .iter()
            .enumerate()
        {
            let r = r(T::DescriptorBindings, i);
            self.idx(r, "name", b.name, s)?;
            self.idx(r, "path", b.path, s)?;
            self.idx(r, "spirv_name", b.spirv_name, s)?;
            self.idx(r, "sampler_path", b.sampler_path, s)?;
            self.idx(r, "buffer_layout", b.buffer_layout, T::BufferLayouts)?;
        }
        for (i, b) in self
            .table::<ShaderRecordBlock>(T::ShaderRecordBlocks)
            .iter()
            .enumerate()
        {
            let r = r(T::ShaderRecordBlocks, i);
            self.idx(r, "name", b.name, s)?;
            self.idx(r, "buffer_layout", b.buffer_layout, T::BufferLayouts)?;
        }
        for (i, set) in self
            .table::<DescriptorSetLayout>(T::DescriptorSetLayouts)
            .iter()
            .enumerate()
        {
            let r = r(T::DescriptorSetLayouts, i);
            self.range(
                r,
                "first_binding",
                set.first_binding,
                set.binding_count,
                T::DescriptorBindings,
            )?;
        }
        for (i, p) in self
            .table::<PushConstantRange>(T::PushConstantRanges)
            .iter()
            .enumerate()
        {
            let r = r(T::PushConstantRanges, i);
            self.idx(r, "name", p.name, s)?;
            self.idx(r, "buffer_layout", p.buffer_layout, T::BufferLayouts)?;
        }
        for (i, b) in self
            .table::<BufferLayout>(T::BufferLayouts)
            .iter()
            .enumerate()
        {
            let r = r(T::BufferLayouts, i);
            self.idx(r, "name", b.name, s)?;
            self.range(
                r,
                "first_member",
                b.first_member,
                b.member_count,
                T::BufferMembers,
            )?;
        }
        for (i, m) in self
            .table::<BufferMember>(T::BufferMembers)
            .iter()
            .enumerate()
        {
            let r = r(T::BufferMembers, i);
            self.idx(r, "path", m.path, s)?;
            self.idx(r, "name", m.name, s)?;
            self.idx(r, "parent", m.parent, T::BufferMembers)?;
            self.range(
                r,
                "first_attribute",
                m.first_attribute,
                m.attribute_count,
                T::MemberAttributes,
            )?;
        }
        for (i, a) in self
            .table::<MemberAttribute>(T::MemberAttributes)
            .iter()
            .enumerate()
        {
            let r = r(T::MemberAttributes, i);
            self.idx(r, "name", a.name, s)?;
            self.idx(r, "arguments", a.arguments, s)?;
        }
        for (i, v) in self
            .table::<VertexInput>(T::VertexInputs)
            .iter()
            .enumerate()
        {
            let r = r(T::VertexInputs, i);
            self.idx(r, "semantic_name", v.semantic_name, s)?;
            self.idx(r, "name", v.name, s)?;
        }
        for (i, c) in self
            .table::<SpecializationConstant>(T::SpecializationConstants)
            .iter()
            .enumerate()
        {
            self.idx(r(T::SpecializationConstants, i), "name", c.name, s)?;
        }
        let slots = self.table::<NameIndexSlot>(T::NameIndex);
        if !slots.is_empty() && !slots.len().is_power_of_two() {
            return Err(self.fail(
                r(T::NameIndex, 0),
                "length",
                format!("{} slots, expected a power of two", slots.len()),
            ));
        }
        for (i, slot) in slots.iter().enumerate() {
            let target = match slot.kind() {
                None => continue,
                Some(NameKind::Binding) => T::DescriptorBindings,
                Some(NameKind::Member) => T::BufferMembers,
                Some(NameKind::Buffer) => T::BufferLayouts,
                Some(NameKind::Unknown(other)) => {
                    return Err(self.fail(
                        r(T::NameIndex, i),
                        "target",
                        format!("kind {other}, expected 1, 2 or 3"),
                    ))
                }
            };
            self.idx(r(T::NameIndex, i), "target", slot.index(), target)?;
        }
        Ok(())
    }
}
