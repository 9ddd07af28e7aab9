//! The one list of reflection table kinds.
//!
//! [`reflection_tables!`](crate::reflection_tables) holds, once, every table a reflection blob
//! can hold: its raw kind, its [`TableKind`] variant, its accessor name and its record type.
//! [`TableKind`], the [`TableRecord`] impls and [`TABLES`] are generated from it here; the
//! reader generates its table accessors from it; SPEC.md's table of kinds is checked against
//! [`TABLES`] by the spec test.

use crate::enums::raw_enum;
use crate::reflection::TableRecord;

/// Calls the macro `$m` with the list of reflection tables, one per line:
/// `#[doc = "..."] raw Variant accessor: Record;`.
///
/// ```
/// macro_rules! count {
///     ($( $(#[$doc:meta])* $raw:literal $variant:ident $name:ident : $rec:ty; )*) => {
///         [$( stringify!($name), )*].len()
///     };
/// }
/// assert_eq!(slangpack_format::reflection_tables!(count), slangpack_format::TABLE_KINDS);
/// ```
#[macro_export]
macro_rules! reflection_tables {
    ($m:ident) => {
        $m! {
            /// Every type the program references.
            1 Types types: $crate::Type;
            /// Type layouts.
            2 TypeLayouts type_layouts: $crate::TypeLayout;
            /// Variables (globals, parameters, fields).
            3 Variables variables: $crate::Variable;
            /// Variable layouts.
            4 VarLayouts var_layouts: $crate::VarLayout;
            /// Functions.
            5 Functions functions: $crate::Function;
            /// Generics.
            6 Generics generics: $crate::Generic;
            /// The declaration tree (its root is the header's `root_decl`).
            7 Decls decls: $crate::Decl;
            /// Entry-point layouts.
            8 EntryPoints entry_points: $crate::EntryPointLayout;
            /// User attributes.
            9 Attributes attributes: $crate::Attribute;
            /// User-attribute arguments.
            10 AttributeArgs attribute_args: $crate::AttributeArg;
            /// Modifiers.
            11 Modifiers modifiers: $crate::Modifier;
            /// Strings with Slang's precomputed hash.
            12 HashedStrings hashed_strings: $crate::HashedString;
            /// Binding ranges.
            13 BindingRanges binding_ranges: $crate::BindingRange;
            /// Descriptor sets.
            14 DescriptorSets descriptor_sets: $crate::DescriptorSet;
            /// Descriptor ranges.
            15 DescriptorRanges descriptor_ranges: $crate::DescriptorRange;
            /// Sub-object ranges.
            16 SubObjectRanges sub_object_ranges: $crate::SubObjectRange;
            /// The shared `u32` pool (plain words).
            17 U32Pool u32_pool: u32;
            /// The string table (offset and length of each string).
            18 StringRefs string_refs: $crate::StringRef;
            /// The string bytes (UTF-8).
            19 StringBytes string_bytes: u8;
            /// The bind view's program-wide facts (exactly one record).
            20 BindSummary bind_summary: $crate::bind::BindSummary;
            /// Descriptor bindings, sorted by set and binding.
            21 DescriptorBindings descriptor_bindings: $crate::bind::DescriptorBinding;
            /// Descriptor set layouts, sorted by set.
            22 DescriptorSetLayouts descriptor_set_layouts: $crate::bind::DescriptorSetLayout;
            /// Push-constant ranges.
            23 PushConstantRanges push_constant_ranges: $crate::bind::PushConstantRange;
            /// Buffer layouts.
            24 BufferLayouts buffer_layouts: $crate::bind::BufferLayout;
            /// Buffer members, flattened in pre-order per buffer.
            25 BufferMembers buffer_members: $crate::bind::BufferMember;
            /// User attributes of buffer members.
            26 MemberAttributes member_attributes: $crate::bind::MemberAttribute;
            /// Vertex inputs, sorted by entry point and location.
            27 VertexInputs vertex_inputs: $crate::bind::VertexInput;
            /// Specialization constants.
            28 SpecializationConstants specialization_constants: $crate::bind::SpecializationConstant;
            /// The name index (a power-of-two open-addressing hash table).
            29 NameIndex name_index: $crate::bind::NameIndexSlot;
            /// Shader-record blocks (ray-tracing shader binding table records).
            30 ShaderRecordBlocks shader_record_blocks: $crate::bind::ShaderRecordBlock;
            /// Bind views of targets other than SPIR-V, sorted by target, space, register
            /// class, index.
            31 TargetBindings target_bindings: $crate::targets::TargetBinding;
            /// Fragment outputs, sorted by entry point and location (since 1.3).
            32 FragmentOutputs fragment_outputs: $crate::bind::FragmentOutput;
            /// Execution modes, one per entry point in entry-point order (since 1.3).
            33 ExecutionModes execution_modes: $crate::bind::ExecutionModes;
            /// Member layouts of buffers of targets whose layout rules are not Vulkan's (HLSL,
            /// Metal), sorted by target binding (since 1.4).
            34 TargetBuffers target_buffers: $crate::targets::TargetBuffer;
            /// Members of the target buffers, parallel to their Vulkan layouts' members (since
            /// 1.4).
            35 TargetMembers target_members: $crate::targets::TargetMember;
            /// Metal argument buffers' structs, sorted by target binding (since 1.5).
            36 ArgumentBuffers argument_buffers: $crate::targets::ArgumentBuffer;
            /// Members of the argument buffers' structs, in pre-order per argument buffer
            /// (since 1.5).
            37 ArgumentBufferMembers argument_buffer_members: $crate::targets::ArgumentBufferMember;
            /// Buffer members that refer to another buffer layout (buffer device addresses,
            /// descriptor handles of buffers), sorted by member (since 1.7).
            38 MemberPointees member_pointees: $crate::bind::MemberPointee;
        }
    };
}

/// One reflection table kind, as [`TABLES`] lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableInfo {
    /// The kind.
    pub kind: TableKind,
    /// Its name in SPEC.md and the reader's accessor (`type_layouts`).
    pub name: &'static str,
    /// The size of one record this version defines, in bytes (1 for string bytes).
    pub record_size: u32,
}

macro_rules! define_tables {
    ($( $(#[$doc:meta])* $raw:literal $variant:ident $name:ident : $rec:ty; )*) => {
        raw_enum! {
            /// The kind of a table inside a reflection blob (slangpack's own values).
            ///
            /// Kinds 1 to 19 are the raw reflection tables and their pools; 20 to 30 the bind
            /// view; 31 the bind views of further targets; 32 and 33 the bind view's pipeline
            /// facts; 34 and 35 the member layouts of further targets; 36 and 37 Metal argument buffers; 38 the layouts members point at; later minor versions may add more, which older readers skip.
            pub enum TableKind {
                $( $(#[$doc])* $variant = $raw, )*
            }
        }

        $( impl TableRecord for $rec { const KIND: TableKind = TableKind::$variant; } )*

        /// Every table kind this version knows, in kind order (`TABLES[k - 1]` is kind `k`).
        pub const TABLES: [TableInfo; TABLE_KINDS] = [
            $( TableInfo {
                kind: TableKind::$variant,
                name: stringify!($name),
                record_size: core::mem::size_of::<$rec>() as u32,
            }, )*
        ];

        /// Number of table kinds this version knows (kinds `1..=TABLE_KINDS`).
        pub const TABLE_KINDS: usize = [$( $raw, )*].len();

        #[allow(clippy::indexing_slicing, reason = "evaluated at compile time")]
        const _: () = {
            let raws = [$( $raw, )*];
            let mut i = 0;
            while i < raws.len() {
                assert!(raws[i] == i + 1, "table kinds are numbered 1, 2, 3, ... in the list");
                i += 1;
            }
        };
    };
}

reflection_tables!(define_tables);

/// The last raw Slang table kind (`U32Pool`): kinds 1 to this are [`TableKind::is_raw`].
pub const LAST_RAW_TABLE: u32 = 17;

impl TableKind {
    /// Position of a known kind in [`TABLES`] (`kind - 1`), or `None` for an unknown kind.
    #[must_use]
    #[inline]
    pub const fn slot(self) -> Option<usize> {
        match self {
            Self::Unknown(_) => None,
            known => Some(known.to_raw() as usize - 1),
        }
    }

    /// The [`TableInfo`] of a known kind.
    #[must_use]
    #[inline]
    pub const fn info(self) -> Option<&'static TableInfo> {
        match self.slot() {
            #[allow(
                clippy::indexing_slicing,
                reason = "a known kind's slot indexes TABLES"
            )]
            Some(i) => Some(&TABLES[i]),
            None => None,
        }
    }

    /// Whether the kind is one of the raw Slang tables (`Types` to `U32Pool`, kinds 1 to 17):
    /// the tables a 1.6 blob places from its `tables_offset` on, which the bind view never
    /// reads.
    #[must_use]
    #[inline]
    pub const fn is_raw(self) -> bool {
        let raw = self.to_raw();
        raw >= 1 && raw <= LAST_RAW_TABLE
    }

    /// The kind's name (`type_layouts`), `"unknown"` for a kind this version does not know.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self.info() {
            Some(info) => info.name,
            None => "unknown",
        }
    }
}
