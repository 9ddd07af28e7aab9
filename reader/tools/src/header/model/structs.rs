//! The host structs of one buffer layout: each member placed at its offset with padding,
//! nested structs first, and the layouts no host struct can have refused.

use super::super::matrix_note;
use super::super::names::{camel, field_ident, Scope};
use super::{Field, Scalar, StructDef, Ty};
use crate::diff::member_type;
use slangpack_format::bind::{BufferLayout, BufferMember, ARRAY_UNBOUNDED, BUFFER_HEAP};
use slangpack_format::limits::MAX_NESTING_DEPTH;
use slangpack_format::{TypeKind, ABSENT};
use slangpack_reader::BindView;

/// The children of every member of one buffer layout, in one pass (a scan per struct member
/// was quadratic in the members of wide layouts).
pub(super) struct Children {
    /// `start[i]..start[i + 1]` indexes `list` with the children of local member `i`; the
    /// last range holds the top-level members.
    start: Vec<usize>,
    list: Vec<usize>,
}

impl Children {
    pub(super) fn of(layout: &BufferLayout, members: &[BufferMember]) -> Children {
        let n = members.len();
        // The parent of each member as a local index; `n` for the top level. The reader
        // refuses a parent that is not an earlier member of this layout (SPEC 6.7); should one
        // get here anyway, it counts as top level, so every member is placed once.
        let parent = |i: usize| {
            let m = &members[i];
            match m.parent.checked_sub(layout.first_member) {
                Some(p) if m.parent != ABSENT && (p as usize) < i => p as usize,
                _ => n,
            }
        };
        let mut start = vec![0usize; n + 2];
        for i in 0..n {
            start[parent(i) + 1] += 1;
        }
        for i in 0..=n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0usize; n];
        for i in 0..n {
            let p = parent(i);
            list[fill[p]] = i;
            fill[p] += 1;
        }
        Children { start, list }
    }

    fn of_member(&self, i: usize) -> &[usize] {
        &self.list[self.start[i]..self.start[i + 1]]
    }

    pub(super) fn top(&self) -> &[usize] {
        self.of_member(self.start.len() - 2)
    }
}

pub(super) struct StructBuilder<'b, 'a> {
    pub(super) bind: &'b BindView<'a>,
    /// The buffer's name, for errors.
    pub(super) buffer: &'a str,
    pub(super) members: &'b [BufferMember],
    /// The index of `members[0]` among all buffer members (for what a member points at),
    /// absent for a further target's members.
    pub(super) first_member: u32,
    pub(super) children: &'b Children,
    pub(super) names: &'b mut Scope,
    pub(super) structs: &'b mut Vec<StructDef>,
    /// The further target whose layout the members have (HLSL, Metal), `None` for Vulkan's.
    pub(super) target: Option<slangpack_format::Target>,
}

/// The fields of one struct placed so far: the offset they end at, the padding fields
/// added, whether a runtime-sized array ended it, the last member's path, and the struct's
/// alignment with the member that gives it.
struct Placement<'p> {
    fields: Vec<Field>,
    cursor: u32,
    pads: u32,
    unsized_tail: bool,
    previous: Option<&'p str>,
    align: (u32, &'p str),
}

impl<'a> StructBuilder<'_, 'a> {
    /// Emits the struct `name` made of the members `items` (local indices), whose offsets
    /// are relative to `base`, padded to `size`. Nested structs are emitted first. Returns
    /// the struct's alignment on the host (its most aligned field's).
    ///
    /// Refuses a layout no host struct has, which the header's own layout checks would fail
    /// on: a member before its parent's start, overlapping the previous one or ending past
    /// its struct; a field at an offset its host type's alignment does not divide; a struct
    /// whose size its alignment does not divide (C and Rust round `sizeof` up); a
    /// runtime-sized array that is not the last member of its buffer.
    ///
    /// Recursive (through `member_ty`), one level per level of member nesting (`depth`, 1 at
    /// the top): the reader refuses members nested deeper than [`MAX_NESTING_DEPTH`] (SPEC.md,
    /// "Limits"), and this walk checks the bound again, so the stack it takes (and the length
    /// of nested struct names, which grow with the depth) stays bounded whatever the input.
    pub(super) fn build(
        &mut self,
        name: String,
        doc: String,
        (items, depth): (&[usize], u32),
        base: u32,
        size: u32,
    ) -> Result<u32, String> {
        if depth > MAX_NESTING_DEPTH {
            return Err(format!(
                "buffer `{}`: members nest deeper than {MAX_NESTING_DEPTH} levels",
                crate::text::shown(self.buffer)
            ));
        }
        let mut placed = Placement {
            fields: Vec::new(),
            cursor: 0,
            pads: 0,
            unsized_tail: false,
            previous: None,
            align: (1, ""),
        };
        for &i in items {
            self.place(&name, (i, depth), base, size, &mut placed)?;
        }
        let Placement {
            mut fields,
            cursor,
            pads,
            unsized_tail,
            align,
            ..
        } = placed;
        if !unsized_tail && size % align.0 != 0 {
            return Err(self.refuse(
                align.1,
                format!(
                    "has alignment {}, but its {}'s size {size} is not a multiple of it",
                    align.0,
                    if depth == 1 { "buffer" } else { "parent" }
                ),
            ));
        }
        if size > cursor && !unsized_tail {
            fields.push(Field {
                name: format!("_pad{pads}"),
                ty: Ty::Bytes(size - cursor),
                offset: cursor,
                doc: String::new(),
            });
        }
        self.structs.push(StructDef {
            name,
            doc,
            fields,
            size,
            unsized_tail,
        });
        Ok(align.0)
    }

    /// An impossible layout would give code whose own layout checks fail to compile: the
    /// generator refuses it, naming the member and both values.
    fn refuse(&self, path: &str, what: String) -> String {
        format!(
            "buffer `{}` member `{}` {what}: the layout is impossible, no header generated",
            crate::text::shown(self.buffer),
            crate::text::shown(path)
        )
    }

    /// Places member `i` (at nesting `depth`) of the struct `name` after what `placed`
    /// holds: padding before it, its field, the checks of [`StructBuilder::build`].
    fn place(
        &mut self,
        name: &str,
        (i, depth): (usize, u32),
        base: u32,
        size: u32,
        placed: &mut Placement<'a>,
    ) -> Result<(), String> {
        let m = self.members[i];
        let path = self.bind.string(m.path);
        let member_name = self.bind.string(m.name).to_string();
        let field_name = field_ident(&member_name, || {
            format!("buffer `{}` member {i}", crate::text::shown(self.buffer))
        })?;
        let Some(offset) = m.offset.checked_sub(base) else {
            return Err(self.refuse(
                path,
                format!(
                    "is at offset {}, before its parent's start {base}",
                    m.offset
                ),
            ));
        };
        if offset < placed.cursor {
            return Err(self.refuse(
                path,
                format!(
                    "at offset {} overlaps the previous member `{}`, which ends at {}",
                    u64::from(base) + u64::from(offset),
                    crate::text::shown(placed.previous.unwrap_or("")),
                    u64::from(base) + u64::from(placed.cursor)
                ),
            ));
        }
        if offset > placed.cursor {
            placed.fields.push(Field {
                name: format!("_pad{}", placed.pads),
                ty: Ty::Bytes(offset - placed.cursor),
                offset: placed.cursor,
                doc: String::new(),
            });
            placed.pads += 1;
        }
        if placed.unsized_tail {
            return Err(self.refuse(
                path,
                format!(
                    "at offset {} follows the runtime-sized array `{}`, which must be the \
                     last member",
                    u64::from(base) + u64::from(offset),
                    crate::text::shown(placed.previous.unwrap_or(""))
                ),
            ));
        }
        let (ty, field_size, field_align) = self.member_ty(name, (i, depth), &member_name)?;
        if matches!(&ty, Ty::Array(_, 0)) {
            if depth > 1 {
                return Err(self.refuse(
                    path,
                    "is a runtime-sized array inside a struct: only a buffer's last \
                     member may be one"
                        .to_string(),
                ));
            }
            placed.unsized_tail = true;
        }
        if offset % field_align != 0 {
            return Err(self.refuse(
                path,
                format!(
                    "at offset {} is not a multiple of its alignment {field_align} (from \
                     {base})",
                    u64::from(base) + u64::from(offset)
                ),
            ));
        }
        if field_align > placed.align.0 {
            placed.align = (field_align, path);
        }
        placed.fields.push(Field {
            name: field_name,
            ty,
            offset,
            doc: format!(
                "`{}`: offset {offset}, {} bytes, {}.{}{}",
                self.bind.string(m.path),
                m.size,
                member_type(&m),
                matrix_note(&m),
                self.pointee_note(i)
            ),
        });
        placed.cursor = offset.saturating_add(field_size);
        placed.previous = Some(path);
        if placed.cursor > size && !placed.unsized_tail {
            return Err(self.refuse(
                path,
                format!(
                    "ends at {}, past the end of its {} ({size} bytes from {base})",
                    u64::from(base) + u64::from(offset) + u64::from(field_size),
                    if depth == 1 { "buffer" } else { "parent" }
                ),
            ));
        }
        Ok(())
    }

    /// What member `i` leads to (SPEC.md 6.11), for its doc: the struct of the data behind a
    /// buffer device address, or of the buffer a descriptor handle names.
    fn pointee_note(&self, i: usize) -> String {
        let Some(index) = u32::try_from(i)
            .ok()
            .and_then(|i| self.first_member.checked_add(i))
            .filter(|_| self.first_member != ABSENT)
        else {
            return String::new();
        };
        match self.bind.pointee(index) {
            Some(p) if p.kind == BUFFER_HEAP => format!(
                " A descriptor handle (its first word indexes the heap) of a buffer of `{}` \
                 (see its struct; a storage buffer's elements lie {} bytes apart).",
                self.bind.string(p.name),
                p.stride
            ),
            Some(p) => format!(
                " A buffer device address (`VkDeviceAddress`) of `{}` data (see its struct).",
                self.bind.string(p.name)
            ),
            None => String::new(),
        }
    }

    /// The host type of member `i`, its size in bytes and its alignment on the host.
    fn member_ty(
        &mut self,
        parent: &str,
        (i, depth): (usize, u32),
        member_name: &str,
    ) -> Result<(Ty, u32, u32), String> {
        // A member name is a Slang identifier here (checked by the caller); `_` alone gives
        // no word, and the parent's name alone (claimed with a suffix) names its struct.
        let stem = camel(member_name, String::new).unwrap_or_default();
        let m = self.members[i];
        let is_array = m.array_count != 0;
        // One value (of the element, for arrays) and its size.
        let value_size = if is_array { m.array_stride } else { m.size };
        let (value, value_len, value_align) =
            self.value_ty(parent, &stem, (i, depth), value_size)?;
        // A target's value smaller than its host type (Metal's one-byte `bool`; HLSL's
        // matrix whose last vector is not padded to the register): its bytes.
        let value = match self.target {
            Some(_) if value_len > value_size && !matches!(value, Ty::Named(_)) => {
                (Ty::Bytes(value_size), value_size, 1)
            }
            _ => (value, value_len, value_align),
        };
        if !is_array {
            return Ok(value);
        }
        self.array_ty(parent, &stem, i, value)
    }

    /// The host type of one value of member `i` (of its element, for an array), whose size
    /// is `value_size`: its size in bytes and its alignment on the host.
    fn value_ty(
        &mut self,
        parent: &str,
        stem: &str,
        (i, depth): (usize, u32),
        value_size: u32,
    ) -> Result<(Ty, u32, u32), String> {
        let m = self.members[i];
        let is_array = m.array_count != 0;
        let kind = TypeKind::from_raw(m.type_kind);
        Ok(match kind {
            // Several types' data over an existential's payload: its words.
            TypeKind::Struct
                if super::super::dispatched(self.children.of_member(i), self.members) =>
            {
                (
                    Ty::Array(Box::new(Ty::Scalar(Scalar::U32)), value_size / 4),
                    value_size,
                    4,
                )
            }
            TypeKind::Struct => {
                let name = self.names.claim(format!("{parent}{stem}"));
                let children = self.children.of_member(i);
                let base = if is_array { 0 } else { m.offset };
                let doc = format!(
                    "`{}`{}: {} bytes.",
                    self.bind.string(m.path),
                    if is_array { " (one array element)" } else { "" },
                    value_size
                );
                let align =
                    self.build(name.clone(), doc, (children, depth + 1), base, value_size)?;
                (Ty::Named(name), value_size, align)
            }
            TypeKind::Scalar | TypeKind::Enum | TypeKind::Vector | TypeKind::Pointer => {
                scalar_ty(&m, kind, value_size)
            }
            TypeKind::Matrix => matrix_ty(&m, value_size),
            _ => (Ty::Bytes(value_size), value_size, 1),
        })
    }

    /// Member `i`, an array, as a host array of `value` (its element's type, size and
    /// alignment): with a wrapper padding each element to the array stride where the stride
    /// is larger, or as its bytes where a later member may sit in its last element's padding.
    fn array_ty(
        &mut self,
        parent: &str,
        stem: &str,
        i: usize,
        (value, value_len, value_align): (Ty, u32, u32),
    ) -> Result<(Ty, u32, u32), String> {
        let m = self.members[i];
        let count = if m.array_count == ARRAY_UNBOUNDED {
            0
        } else {
            m.array_count
        };
        if self.target.is_some()
            && count > 0
            && m.array_stride.max(value_len).saturating_mul(count) > m.size
        {
            // HLSL packs an array's last element without its padding, so a later member may
            // sit in it: the array as its bytes (elements `array_stride` apart).
            return Ok((Ty::Bytes(m.size), m.size, 1));
        }
        let stride = m.array_stride.max(value_len);
        if stride % value_align != 0 {
            return Err(format!(
                "buffer `{}` member `{}` has array stride {stride}, not a multiple of its \
                 element's alignment {value_align}: the layout is impossible, no header generated",
                crate::text::shown(self.buffer),
                crate::text::shown(self.bind.string(m.path))
            ));
        }
        let element = if m.array_stride > value_len {
            // A wrapper padding the element to the stride.
            let name = self.names.claim(format!("{parent}{stem}Element"));
            let pad = m.array_stride - value_len;
            self.structs.push(StructDef {
                name: name.clone(),
                doc: format!(
                    "One element of `{}`: the value, padded to the array stride ({} bytes).",
                    self.bind.string(m.path),
                    m.array_stride
                ),
                fields: vec![
                    Field {
                        name: "value".into(),
                        ty: value,
                        offset: 0,
                        doc: "The element.".to_string(),
                    },
                    Field {
                        name: "_pad0".into(),
                        ty: Ty::Bytes(pad),
                        offset: value_len,
                        doc: String::new(),
                    },
                ],
                size: m.array_stride,
                unsized_tail: false,
            });
            Ty::Named(name)
        } else {
            value
        };
        Ok((
            Ty::Array(Box::new(element), count),
            stride.saturating_mul(count),
            value_align,
        ))
    }
}

/// The host type of a scalar, enum, vector or pointer member `m` of `kind` whose value is
/// `value_size` bytes: its size and alignment.
fn scalar_ty(m: &BufferMember, kind: TypeKind, value_size: u32) -> (Ty, u32, u32) {
    let scalar = if kind == TypeKind::Pointer {
        Some(Scalar::U64)
    } else {
        Scalar::from_slang(m.scalar_type).or_else(|| {
            let columns = m.columns.max(1);
            Scalar::unsigned_of_size(m.size / columns)
        })
    };
    match scalar {
        Some(s) if kind == TypeKind::Vector => (
            Ty::Array(Box::new(Ty::Scalar(s)), m.columns),
            s.size().saturating_mul(m.columns),
            s.size(),
        ),
        Some(s) => (Ty::Scalar(s), s.size(), s.size()),
        None => (Ty::Bytes(value_size), value_size, 1),
    }
}

/// The host type of a matrix member `m` whose value is `value_size` bytes (its vectors as
/// arrays, each padded to the matrix stride): its size and alignment.
fn matrix_ty(m: &BufferMember, value_size: u32) -> (Ty, u32, u32) {
    let (vectors, length) = if m.matrix_layout == 1 {
        (m.rows, m.columns)
    } else {
        (m.columns, m.rows)
    };
    match Scalar::from_slang(m.scalar_type) {
        Some(s)
            if m.matrix_stride % s.size() == 0
                && m.matrix_stride / s.size() >= length
                && vectors > 0 =>
        {
            let lanes = m.matrix_stride / s.size();
            (
                Ty::Array(Box::new(Ty::Array(Box::new(Ty::Scalar(s)), lanes)), vectors),
                vectors.saturating_mul(m.matrix_stride),
                s.size(),
            )
        }
        _ => (Ty::Bytes(value_size), value_size, 1),
    }
}
