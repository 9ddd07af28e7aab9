//! Buffer layouts: the ordinary-data members of a buffer, flattened in pre-order with
//! offsets, sizes, strides, matrix and array facts.

use super::walk::Walk;
use super::*;
use slangpack_format::ScalarType;
use slangpack_slang::reflection::{TypeLayout, VarLayout, Variable};
use std::collections::BTreeMap;

pub(super) struct MemberOut {
    pub(super) path: String,
    pub(super) name: String,
    pub(super) parent: Option<usize>,
    pub(super) rec: BufferMember,
    pub(super) attributes: Vec<(String, String, u32)>,
    /// The interface of an interface-typed (existential) member, which `build_bind_view`
    /// refuses.
    pub(super) interface: Option<String>,
    /// For a buffer device address or a descriptor handle of a constant buffer, the key of
    /// the layout it leads to in [`Walk::targets`].
    pub(super) refers: Option<String>,
    /// That layout, once [`Walk::resolve_targets`] has laid it out (index into the walk's
    /// buffers).
    pub(super) pointee: Option<usize>,
}

/// A layout a member leads to (see [`MemberOut::refers`]): the data behind a buffer device
/// address, or a constant buffer reached through a descriptor heap.
#[derive(Clone, Copy)]
pub(super) struct Target<'a> {
    /// The pointee's (or the constant buffer's element's) type layout.
    pub(super) layout: TypeLayout<'a>,
    /// [`BUFFER_POINTEE`] or [`BUFFER_HEAP`].
    pub(super) kind: u32,
    /// For the element of a structured buffer reached through a descriptor handle, its
    /// element stride (std430 on Vulkan); `None` for a constant buffer or a pointee.
    pub(super) element_stride: Option<usize>,
}

pub(super) struct BufferOut {
    pub(super) name: String,
    pub(super) kind: u32,
    pub(super) set: u32,
    pub(super) binding: u32,
    pub(super) size: u32,
    pub(super) alignment: u32,
    pub(super) stride: u32,
    pub(super) matrix_layout: u32,
    pub(super) members: Vec<MemberOut>,
}

impl<'a> Walk<'a> {
    /// Records the layout of a buffer whose contents have type layout `tl`.
    pub(super) fn buffer(
        &mut self,
        name: &str,
        kind: u32,
        tl: TypeLayout<'a>,
        set: u32,
        binding: u32,
        size: usize,
    ) -> usize {
        let mut members = Vec::new();
        self.members(tl, 0, "", None, false, &mut members);
        self.buffers.push(BufferOut {
            name: name.to_string(),
            kind,
            set,
            binding,
            size: u(size),
            alignment: u(tl.alignment(CAT_UNIFORM).max(1) as usize),
            stride: u(size),
            matrix_layout: tl.matrix_layout(),
            members,
        });
        self.buffers.len() - 1
    }

    /// Flattens the ordinary-data members of `tl` (a struct, or a single value) in pre-order.
    pub(super) fn members(
        &self,
        tl: TypeLayout<'a>,
        base: usize,
        prefix: &str,
        parent: Option<usize>,
        element_relative: bool,
        out: &mut Vec<MemberOut>,
    ) {
        if tl.kind() != KIND_STRUCT {
            return;
        }
        for field in tl.fields() {
            let Some(ftl) = field.type_layout() else {
                continue;
            };
            let size = ftl.size(CAT_UNIFORM);
            if size == 0 {
                continue; // resources occupy no bytes
            }
            let variable = field.variable();
            let name = variable.and_then(|v| v.name()).unwrap_or_default();
            let path = join(prefix, &name);
            let refers = self.refers(ftl, field);
            let offset = base + field.offset(CAT_UNIFORM);
            if ftl.kind() == KIND_INTERFACE
                && self.interface_value(&name, &path, parent, u(offset), u(size), ftl, out)
            {
                continue;
            }
            let (array_count, array_stride, value_tl) = if ftl.kind() == KIND_ARRAY {
                // `None`: sized by a specialization constant; `build_bind_view` refuses the
                // buffer, whose size Slang cannot compute either.
                let n = match ftl
                    .ty()
                    .map_or(Some(0), |t| t.element_count(self.program_layout))
                {
                    Some(n) if n == UNBOUNDED || n >= i32::MAX as usize => ARRAY_UNBOUNDED,
                    Some(n) => u(n),
                    None => 0,
                };
                (
                    n,
                    u(ftl.element_stride(CAT_UNIFORM)),
                    ftl.element_type_layout().unwrap_or(ftl),
                )
            } else {
                (0, 0, ftl)
            };
            let ty = value_tl.ty();
            let kind = value_tl.kind();
            let (rows, columns, matrix_layout, matrix_stride) = value_shape(value_tl);
            let scalar_type = match kind {
                KIND_SCALAR | KIND_VECTOR | KIND_MATRIX => ty.map_or(0, |t| scalar_of(t)),
                _ => 0,
            };
            let (default_flags, default) = default_value(variable);
            let flags = default_flags
                | if element_relative {
                    MEMBER_ELEMENT_RELATIVE
                } else {
                    0
                };
            let attributes = variable.map(attributes).unwrap_or_default();
            let index = out.len();
            out.push(MemberOut {
                path: path.clone(),
                name,
                parent,
                rec: BufferMember {
                    offset: u(offset),
                    size: u(size),
                    stride: u(ftl.stride(CAT_UNIFORM).max(size)),
                    alignment: u(ftl.alignment(CAT_UNIFORM).max(1) as usize),
                    type_kind: kind,
                    scalar_type,
                    rows,
                    columns,
                    matrix_layout,
                    matrix_stride,
                    array_count,
                    array_stride,
                    flags,
                    default_lo: default as u32,
                    default_hi: (default >> 32) as u32,
                    ..BufferMember::default()
                },
                attributes,
                interface: (kind == KIND_INTERFACE)
                    .then(|| ty.and_then(|t| t.name()).unwrap_or_default()),
                refers,
                pointee: None,
            });
            if kind == KIND_STRUCT {
                if array_count > 0 {
                    self.members(value_tl, 0, &format!("{path}[]"), Some(index), true, out);
                } else {
                    self.members(value_tl, offset, &path, Some(index), element_relative, out);
                }
            }
        }
    }
}

impl<'a> Walk<'a> {
    /// An interface-typed value at `path`: specialized by a type argument, or dispatched among
    /// the program's conformances; `false` when it is neither (then it is an ordinary member).
    #[allow(
        clippy::too_many_arguments,
        reason = "a member's place, as `existential_value` and `dispatched_value` take it"
    )]
    fn interface_value(
        &self,
        name: &str,
        path: &str,
        parent: Option<usize>,
        offset: u32,
        size: u32,
        ftl: TypeLayout<'a>,
        out: &mut Vec<MemberOut>,
    ) -> bool {
        let interface = ftl.ty().and_then(|t| t.name()).unwrap_or_default();
        match self.specialized_existential(&interface) {
            Some(concrete) => {
                self.existential_value(name, path, parent, offset, size, concrete, out)
            }
            None => self.dispatched_value(name, path, parent, offset, size, &interface, out),
        }
    }

    /// The key of the layout member `field` (of type layout `ftl`) leads to, noted in
    /// [`Walk::targets`]: the pointee type of a buffer device address (`T*`, the `_ptr` of a
    /// `ConstBufferPointer<T>`), keyed `*T`, or the element of a descriptor handle of a constant
    /// buffer (`DescriptorHandle<ConstantBuffer<T>>`, which Slang's reflection lays out as the
    /// handle's `uint2` and names only in the field's declared type), keyed `heap T`. A
    /// pointer whose pointee Slang gives no layout (the inner `next` of a node that points at
    /// its own type) is keyed all the same: the layout of its type is the one it leads to.
    fn refers(&self, ftl: TypeLayout<'a>, field: VarLayout<'a>) -> Option<String> {
        if ftl.kind() == KIND_POINTER {
            let layout_name = ftl.element_type_layout().and_then(|l| l.ty()?.full_name());
            let pointee = match layout_name {
                Some(name) => name,
                None => first_type_argument(&ftl.ty()?.full_name()?)?.to_string(),
            };
            let key = format!("*{pointee}");
            if let Some(layout) = ftl.element_type_layout() {
                let kind = BUFFER_POINTEE;
                let mut targets = self.targets.borrow_mut();
                targets.entry(key.clone()).or_insert(Target {
                    layout,
                    kind,
                    element_stride: None,
                });
            }
            return Some(key);
        }
        let declared = field.variable()?.ty()?.full_name()?;
        let inner = declared
            .strip_prefix("DescriptorHandle<")?
            .strip_suffix('>')?;
        let ty = self.program_layout.find_type_by_name(inner)?;
        let storage = ty.kind() == KIND_RESOURCE
            && ty.resource_shape() & SHAPE_BASE_MASK == SHAPE_STRUCTURED_BUFFER;
        if ty.kind() != KIND_CONSTANT_BUFFER && !storage {
            return None;
        }
        let buffer = self.program_layout.type_layout_of(ty)?;
        let layout = buffer.element_type_layout()?;
        let element = layout.ty()?.full_name()?;
        let (key, element_stride) = if storage {
            let size = layout.size(CAT_UNIFORM);
            let stride = (buffer.element_stride(CAT_UNIFORM))
                .max(layout.stride(CAT_UNIFORM))
                .max(size);
            (format!("heap storage {element}"), Some(stride))
        } else {
            (format!("heap {element}"), None)
        };
        let kind = BUFFER_HEAP;
        let mut targets = self.targets.borrow_mut();
        targets.entry(key.clone()).or_insert(Target {
            layout,
            kind,
            element_stride,
        });
        Some(key)
    }

    /// Lays out every layout a member leads to ([`MemberOut::refers`]) as a buffer of its own,
    /// once per key, and points the members at it: pointees of pointees too, and a type that
    /// points at itself at its own layout, so the walk ends. Heap buffers get their heap's set
    /// and binding later ([`Walk::place_heap_buffers`]).
    pub(super) fn resolve_targets(&mut self) {
        let mut laid_out: BTreeMap<String, usize> = BTreeMap::new();
        let mut b = 0;
        while b < self.buffers.len() {
            for m in 0..self.buffers[b].members.len() {
                let Some(key) = self.buffers[b].members[m].refers.clone() else {
                    continue;
                };
                let target = match laid_out.get(&key) {
                    Some(&t) => Some(t),
                    None => {
                        let target = self.targets.borrow().get(&key).copied();
                        target.map(|t| {
                            let name = t.layout.ty().and_then(|ty| ty.full_name());
                            let size = t.layout.size(CAT_UNIFORM);
                            let i = self.buffer(
                                &name.unwrap_or_default(),
                                t.kind,
                                t.layout,
                                ABSENT,
                                ABSENT,
                                size,
                            );
                            if t.kind == BUFFER_POINTEE {
                                self.buffers[i].stride = u(t.layout.stride(CAT_UNIFORM).max(size));
                            }
                            if let Some(stride) = t.element_stride {
                                self.buffers[i].stride = u(stride);
                                self.heap_storage.push(i);
                            }
                            laid_out.insert(key, i);
                            i
                        })
                    }
                };
                self.buffers[b].members[m].pointee = target;
            }
            b += 1;
        }
    }

    /// Gives each heap buffer the set and binding of the descriptor heap that holds its kind
    /// of buffer (uniform buffers, or storage buffers for the element of a structured buffer
    /// reached through a handle): a heap binding of that type, or a mutable one that may hold
    /// it. Left absent when no entry point's SPIR-V declares such a heap (a handle the code
    /// never uses).
    pub(super) fn place_heap_buffers(&mut self) {
        for storage in [false, true] {
            let kind = if storage {
                DescriptorKind::StorageBuffer
            } else {
                DescriptorKind::UniformBuffer
            }
            .to_raw();
            let heap = self.bindings.iter().find(|b| {
                b.flags & BINDING_DESCRIPTOR_HEAP != 0
                    && (b.descriptor_type == kind || b.mutable_types & (1 << kind) != 0)
            });
            let Some((set, binding)) = heap.map(|h| (h.set, h.binding)) else {
                continue;
            };
            for (i, buffer) in self.buffers.iter_mut().enumerate() {
                if buffer.kind == BUFFER_HEAP && self.heap_storage.contains(&i) == storage {
                    buffer.set = set;
                    buffer.binding = binding;
                }
            }
        }
    }
}

/// The first type argument of a generic type's full name: `Node` of `Ptr<Node,
/// Access.ReadWrite, AddressSpace.Device, DefaultDataLayout>`, `Box<float, 2>` of
/// `Ptr<Box<float, 2>, ...>`.
fn first_type_argument(full_name: &str) -> Option<&str> {
    let (_, args) = full_name.split_once('<')?;
    let mut depth = 0usize;
    for (i, c) in args.char_indices() {
        match c {
            '<' => depth += 1,
            '>' if depth == 0 => return Some(args[..i].trim()),
            '>' => depth -= 1,
            ',' if depth == 0 => return Some(args[..i].trim()),
            _ => {}
        }
    }
    None
}

/// A plain member record: `kind` at `offset`, `size` bytes.
pub(super) fn plain(
    kind: u32,
    scalar_type: u32,
    columns: u32,
    offset: u32,
    size: u32,
) -> BufferMember {
    BufferMember {
        offset,
        size,
        stride: size,
        alignment: 4,
        type_kind: kind,
        scalar_type,
        rows: u32::from(kind != KIND_STRUCT),
        columns: if kind == KIND_STRUCT { 0 } else { columns },
        ..BufferMember::default()
    }
}

impl<'a> Walk<'a> {
    /// The layout of a parameter block of interface type specialized to a concrete type
    /// (`ParameterBlock<ISurface>` with `--type-arg Glossy`), as Slang's SPIR-V has it: the
    /// existential header Slang keeps (a `uint2` type id, a `uint2` witness-table id and the
    /// payload words, `header_size` bytes in all), then the concrete type's data (`concrete`)
    /// at the next offset it aligns to. Offsets are checked against (and taken from) the
    /// SPIR-V like any other.
    ///
    /// When the concrete type fits the payload (32-bit `int`, `uint` and `float` scalars and
    /// vectors only), Slang packs
    /// it there instead and the block is the existential tuple itself: the header
    /// (`existential.typeId`, `existential.witnessId`) and the payload `value`
    /// ([`MEMBER_EXISTENTIAL_PAYLOAD`]) with the concrete members over its words, so that
    /// `gSurface.value.tint` names the same member either way.
    ///
    /// `None` when the concrete type does not fit the payload and `pending_allowed` is false
    /// (a conformance without a type argument: where Slang puts such data is not described).
    #[allow(
        clippy::too_many_arguments,
        reason = "the block's place, kind and the concrete type; a struct adds nothing"
    )]
    pub(super) fn existential_block(
        &mut self,
        name: &str,
        kind: u32,
        header_size: usize,
        concrete: TypeLayout<'a>,
        set: u32,
        binding: u32,
        pending_allowed: bool,
    ) -> Option<usize> {
        let header = u(header_size);
        let (members, size, alignment) = match packed_block_members(concrete, header) {
            Some(members) => (members, header, 16),
            None if pending_allowed => self.pending_block_members(concrete, header),
            None => return None,
        };
        self.buffers.push(BufferOut {
            name: name.to_string(),
            kind,
            set,
            binding,
            size,
            alignment,
            stride: size,
            matrix_layout: concrete.matrix_layout(),
            members,
        });
        Some(self.buffers.len() - 1)
    }

    /// The members of an existential block whose concrete type does not fit its payload
    /// (`header` bytes of header: the ids and the payload's words), then the concrete type's
    /// data (`value`) at the next offset it aligns to; with the block's size and alignment.
    fn pending_block_members(
        &self,
        concrete: TypeLayout<'a>,
        header: u32,
    ) -> (Vec<MemberOut>, u32, u32) {
        let uint = ScalarType::UInt32.to_raw();
        let mut members = vec![MemberOut::plain(
            "existential".into(),
            "existential",
            None,
            BufferMember {
                flags: MEMBER_EXISTENTIAL,
                alignment: 8,
                ..plain(KIND_STRUCT, 0, 0, 0, header)
            },
        )];
        for (field, offset) in [("typeId", 0), ("witnessId", 8)] {
            members.push(MemberOut::plain(
                format!("existential.{field}"),
                field,
                Some(0),
                BufferMember {
                    alignment: 8,
                    ..plain(KIND_VECTOR, uint, 2, offset, 8)
                },
            ));
        }
        let words = header.saturating_sub(16) / 4;
        let payload = members.len();
        members.push(MemberOut::plain(
            "existential.payload".into(),
            "payload",
            Some(0),
            plain(KIND_STRUCT, 0, 0, 16, words * 4),
        ));
        for w in 0..words {
            members.push(MemberOut::plain(
                format!("existential.payload.word{w}"),
                &format!("word{w}"),
                Some(payload),
                plain(KIND_SCALAR, uint, 1, 16 + 4 * w, 4),
            ));
        }
        let align = u(concrete.alignment(CAT_UNIFORM).max(1) as usize);
        let at = header.div_ceil(align).saturating_mul(align);
        let size = u(concrete.size(CAT_UNIFORM));
        let value = members.len();
        members.push(MemberOut::plain(
            "value".into(),
            "value",
            None,
            BufferMember {
                alignment: align,
                ..plain(KIND_STRUCT, 0, 0, at, size)
            },
        ));
        self.members(
            concrete,
            at as usize,
            "value",
            Some(value),
            false,
            &mut members,
        );
        let alignment = align.max(8);
        let total = at
            .saturating_add(size)
            .div_ceil(alignment)
            .saturating_mul(alignment);
        (members, total, alignment)
    }
}

/// The members of an existential block whose concrete type fits its payload (`header`
/// bytes: 16 of ids, the rest payload): the header (`existential.typeId`,
/// `existential.witnessId`) and the payload `value` with the concrete members packed over
/// its words. `None` when the concrete type does not pack into the payload.
fn packed_block_members(concrete: TypeLayout<'_>, header: u32) -> Option<Vec<MemberOut>> {
    let uint = ScalarType::UInt32.to_raw();
    let payload = header.saturating_sub(16);
    let mut packed = Vec::new();
    let mut words = 0u32;
    if !pack(concrete, "value", &mut words, &mut packed, 8) || words * 4 > payload {
        return None;
    }
    let mut members = vec![
        MemberOut::plain(
            "existential".into(),
            "existential",
            None,
            BufferMember {
                flags: MEMBER_EXISTENTIAL,
                alignment: 8,
                ..plain(KIND_STRUCT, 0, 0, 0, 16)
            },
        ),
        MemberOut::plain(
            "existential.typeId".into(),
            "typeId",
            Some(0),
            BufferMember {
                alignment: 8,
                ..plain(KIND_VECTOR, uint, 2, 0, 8)
            },
        ),
        MemberOut::plain(
            "existential.witnessId".into(),
            "witnessId",
            Some(0),
            BufferMember {
                alignment: 8,
                ..plain(KIND_VECTOR, uint, 2, 8, 8)
            },
        ),
        MemberOut::plain(
            "value".into(),
            "value",
            None,
            BufferMember {
                flags: MEMBER_EXISTENTIAL_PAYLOAD,
                ..plain(KIND_STRUCT, 0, 0, 16, payload)
            },
        ),
    ];
    let first = members.len();
    for (path, name, parent, mut rec) in packed {
        rec.offset += 16;
        members.push(MemberOut::plain(
            path,
            &name,
            Some(parent.map_or(3, |p| first + p)),
            rec,
        ));
    }
    Some(members)
}

impl<'a> Walk<'a> {
    /// The one type an interface-typed value of `interface` inside a buffer can hold: the
    /// type argument of the program's one existential slot (`--type-arg` past the global
    /// generic parameters; several slots are not told apart inside a buffer), or, without
    /// one, the only type declared to conform to `interface` (`--conformance`: Slang then
    /// calls its methods directly, reading the payload and never the ids). `None` otherwise,
    /// and the value is refused.
    fn specialized_existential(&self, interface: &str) -> Option<TypeLayout<'a>> {
        let generics = self.program_layout.type_parameter_count() as usize;
        let specialized = self.type_arguments.get(generics..).unwrap_or_default();
        let name = match specialized {
            [one] => one,
            [] => {
                let mut conforming = (self.conformances.iter()).filter(|(_, i)| i == interface);
                match (conforming.next(), conforming.next()) {
                    (Some((ty, _)), None) => ty,
                    _ => return None,
                }
            }
            _ => return None,
        };
        let ty = self.program_layout.find_type_by_name(name)?;
        self.program_layout.type_layout_of(ty)
    }

    /// An interface-typed value of `size` bytes at `offset`, specialized to `concrete`, as
    /// Slang lays it out when `concrete` fits the payload: the existential header (a `uint2`
    /// type id, a `uint2` witness-table id, both unread by the specialized code) and the
    /// payload (`value`, [`MEMBER_EXISTENTIAL_PAYLOAD`]) holding `concrete`'s data packed into
    /// consecutive 32-bit words in declaration order (Slang's `AnyValue` marshalling). Returns
    /// `false` (and pushes nothing) when `concrete` does not fit or holds anything but 32-bit
    /// `int`, `uint` and `float` scalars and vectors (in structs): Slang then moves the data
    /// elsewhere or packs it in ways the writer does not reproduce, and the value is refused.
    #[allow(
        clippy::too_many_arguments,
        reason = "the member's place and the concrete type; a struct adds nothing"
    )]
    fn existential_value(
        &self,
        name: &str,
        path: &str,
        parent: Option<usize>,
        offset: u32,
        size: u32,
        concrete: TypeLayout<'a>,
        out: &mut Vec<MemberOut>,
    ) -> bool {
        let payload = size.saturating_sub(16);
        let mut packed = Vec::new();
        let mut words = 0u32;
        if !pack(
            concrete,
            &format!("{path}.value"),
            &mut words,
            &mut packed,
            8,
        ) || words * 4 > payload
        {
            return false;
        }
        let value = push_existential_header(out, path, name, parent, offset, size);
        let first = out.len();
        for (path, name, parent, mut rec) in packed {
            rec.offset += offset + 16;
            out.push(MemberOut::plain(
                path,
                &name,
                Some(parent.map_or(value, |p| first + p)),
                rec,
            ));
        }
        true
    }
}

impl MemberOut {
    /// A member without attributes, interface, reference or pointee.
    pub(super) fn plain(
        path: String,
        name: &str,
        parent: Option<usize>,
        rec: BufferMember,
    ) -> Self {
        MemberOut {
            path,
            name: name.to_string(),
            parent,
            rec,
            attributes: Vec::new(),
            interface: None,
            refers: None,
            pointee: None,
        }
    }
}

/// Pushes onto `out` an existential's members at `offset` (`size` bytes in all): the header
/// member `path`, its `typeId` and `witnessId` (`uint2` each) and its `value` payload (the
/// bytes past the first 16); returns the index of `value`, under which the payload's own
/// members go.
pub(super) fn push_existential_header(
    out: &mut Vec<MemberOut>,
    path: &str,
    name: &str,
    parent: Option<usize>,
    offset: u32,
    size: u32,
) -> usize {
    let uint = ScalarType::UInt32.to_raw();
    let header = out.len();
    out.push(MemberOut::plain(
        path.to_string(),
        name,
        parent,
        BufferMember {
            flags: MEMBER_EXISTENTIAL,
            alignment: 8,
            ..plain(KIND_STRUCT, 0, 0, offset, size)
        },
    ));
    for (field, relative) in [("typeId", 0), ("witnessId", 8)] {
        out.push(MemberOut::plain(
            format!("{path}.{field}"),
            field,
            Some(header),
            BufferMember {
                alignment: 8,
                ..plain(KIND_VECTOR, uint, 2, offset + relative, 8)
            },
        ));
    }
    let value = out.len();
    out.push(MemberOut::plain(
        format!("{path}.value"),
        "value",
        Some(header),
        BufferMember {
            flags: MEMBER_EXISTENTIAL_PAYLOAD,
            ..plain(KIND_STRUCT, 0, 0, offset + 16, size.saturating_sub(16))
        },
    ));
    value
}

/// Packs the fields of `tl` into consecutive 32-bit words from `*words` on, as Slang's
/// `AnyValue` marshalling does: each scalar (of a vector, each element; of an array, each
/// element in turn) one word, in declaration order. Each packed member is `(path, name,
/// parent among the packed, record)` with its offset relative to the payload. `false` for
/// anything but 32-bit `int`, `uint` and `float` scalars and vectors in structs (booleans,
/// 16- and 64-bit types, matrices and arrays Slang marshals in ways not reproduced here).
pub(super) fn pack(
    tl: TypeLayout<'_>,
    prefix: &str,
    words: &mut u32,
    out: &mut Vec<(String, String, Option<usize>, BufferMember)>,
    depth: u32,
) -> bool {
    fn leaf(tl: TypeLayout<'_>) -> Option<(u32, u32, u32)> {
        let ty = tl.ty()?;
        let columns = match tl.kind() {
            KIND_SCALAR => 1,
            KIND_VECTOR => ty.column_count(),
            _ => return None,
        };
        let scalar = scalar_of(ty);
        let is_32 = matches!(
            ScalarType::from_raw(scalar),
            ScalarType::Int32 | ScalarType::UInt32 | ScalarType::Float32
        );
        (is_32 && columns > 0).then_some((tl.kind(), scalar, columns))
    }
    fn walk(
        tl: TypeLayout<'_>,
        prefix: &str,
        parent: Option<usize>,
        words: &mut u32,
        out: &mut Vec<(String, String, Option<usize>, BufferMember)>,
        depth: u32,
    ) -> bool {
        if depth == 0 || tl.kind() != KIND_STRUCT {
            return false;
        }
        for field in tl.fields() {
            let Some(ftl) = field.type_layout() else {
                return false;
            };
            let name = field.variable().and_then(|v| v.name()).unwrap_or_default();
            let path = join(prefix, &name);
            let start = *words;
            let index = out.len();
            if let Some((kind, scalar, columns)) = leaf(ftl) {
                out.push((
                    path,
                    name,
                    parent,
                    plain(kind, scalar, columns, start * 4, columns * 4),
                ));
                *words += columns;
            } else if ftl.kind() == KIND_STRUCT {
                out.push((
                    path.clone(),
                    name,
                    parent,
                    plain(KIND_STRUCT, 0, 0, start * 4, 0),
                ));
                if !walk(ftl, &path, Some(index), words, out, depth - 1) {
                    return false;
                }
                out[index].3.size = (*words - start) * 4;
                out[index].3.stride = out[index].3.size;
            } else {
                // Arrays (and anything else) are packed element by element by Slang; not
                // reproduced here.
                return false;
            }
        }
        true
    }
    walk(tl, prefix, None, words, out, depth)
}

/// Rows, columns, matrix layout and matrix stride of a member's value (the element of an
/// array): 1×1 for a scalar, zeros for what is neither scalar, vector nor matrix.
fn value_shape(value_tl: TypeLayout<'_>) -> (u32, u32, u32, u32) {
    let kind = value_tl.kind();
    let (rows, columns) = match kind {
        KIND_MATRIX | KIND_VECTOR | KIND_SCALAR => value_tl
            .ty()
            .map_or((1, 1), |t| (t.row_count().max(1), t.column_count().max(1))),
        _ => (0, 0),
    };
    if kind != KIND_MATRIX {
        return (rows, columns, 0, 0);
    }
    let matrix_layout = value_tl.matrix_layout();
    let vectors = if matrix_layout == 1 { rows } else { columns };
    let stride = value_tl.element_stride(CAT_UNIFORM);
    let matrix_stride = if stride > 0 {
        u(stride)
    } else {
        u(value_tl.size(CAT_UNIFORM))
            .checked_div(vectors)
            .unwrap_or(0)
    };
    (rows, columns, matrix_layout, matrix_stride)
}

/// A member's default value as its flags (`MEMBER_HAS_DEFAULT`, `MEMBER_DEFAULT_IS_FLOAT`)
/// and its 64 bits: an integer's value, or a float's as an `f64`.
fn default_value(variable: Option<Variable<'_>>) -> (u32, u64) {
    let Some(v) = variable.filter(|v| v.has_default_value()) else {
        return (0, 0);
    };
    if let Some(i) = v.default_value_int() {
        (MEMBER_HAS_DEFAULT, i as u64)
    } else if let Some(f) = v.default_value_float() {
        (
            MEMBER_HAS_DEFAULT | MEMBER_DEFAULT_IS_FLOAT,
            f64::from(f).to_bits(),
        )
    } else {
        (0, 0)
    }
}

/// A member's user attributes: name, arguments (integers or floats, comma-separated) and
/// argument count.
fn attributes(variable: Variable<'_>) -> Vec<(String, String, u32)> {
    variable
        .user_attributes()
        .into_iter()
        .map(|a| {
            let n = a.argument_count();
            let args: Vec<String> = (0..n)
                .map(|i| {
                    a.argument_int(i)
                        .map(|x| x.to_string())
                        .or_else(|| a.argument_float(i).map(|x| x.to_string()))
                        .unwrap_or_default()
                })
                .collect();
            (a.name().unwrap_or_default(), args.join(", "), n)
        })
        .collect()
}
