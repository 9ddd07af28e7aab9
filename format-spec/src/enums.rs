//! Typed views of the raw integers stored in records.
//!
//! Records keep Slang's enumerations as raw `u32` values (the values of `slang.h`), so a
//! package baked by a newer Slang stays readable. Each enum here maps the values this version
//! knows to named variants and everything else to `Unknown(raw)`; `to_raw` gives back the
//! exact stored integer, including for `Unknown`.

macro_rules! raw_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $value:expr, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A raw value this version of the format does not name.
            Unknown(u32),
        }

        impl $name {
            /// Maps a raw stored value to its variant; values not named here give `Unknown(raw)`.
            #[must_use]
            #[inline]
            pub const fn from_raw(raw: u32) -> Self {
                match raw {
                    $( $value => Self::$variant, )*
                    other => Self::Unknown(other),
                }
            }

            /// The raw value as stored in a record.
            #[must_use]
            #[inline]
            pub const fn to_raw(self) -> u32 {
                match self {
                    $( Self::$variant => $value, )*
                    Self::Unknown(raw) => raw,
                }
            }
        }

        impl From<u32> for $name {
            fn from(raw: u32) -> Self {
                Self::from_raw(raw)
            }
        }

        impl From<$name> for u32 {
            fn from(value: $name) -> u32 {
                value.to_raw()
            }
        }
    };
}
pub(crate) use raw_enum;

/// [`raw_enum!`] with a name per variant: adds `name()` (`"unknown"` for `Unknown`) and
/// `from_name()`.
macro_rules! named_raw_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $value:expr => $text:literal, )*
        }
    ) => {
        crate::enums::raw_enum! {
            $(#[$meta])*
            pub enum $name {
                $( $(#[$vmeta])* $variant = $value, )*
            }
        }

        impl $name {
            /// The lower-case name (`"unknown"` for a value this version does not name).
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    $( Self::$variant => $text, )*
                    Self::Unknown(_) => "unknown",
                }
            }

            /// The variant named `name` (as [`Self::name`] spells it), `None` for any other
            /// string.
            #[must_use]
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $( $text => Some(Self::$variant), )*
                    _ => None,
                }
            }
        }
    };
}
pub(crate) use named_raw_enum;

/// A set of bit flags stored as a raw `u32`: named constants, set operations, and every bit
/// kept as stored (bits this version does not name survive [`from_raw`](Self::from_raw) and
/// show in `Debug` as a hex remainder), the flag counterpart of `Unknown(raw)`.
macro_rules! raw_flags {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* const $flag:ident = $value:expr; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $name {
            $( $(#[$fmeta])* pub const $flag: Self = Self($value); )*

            /// Every bit this version names.
            pub const KNOWN: Self = Self(0 $( | $value )*);

            /// No flag set.
            #[must_use]
            pub const fn empty() -> Self {
                Self(0)
            }

            /// The flags of a raw stored value, unknown bits included.
            #[must_use]
            pub const fn from_raw(raw: u32) -> Self {
                Self(raw)
            }

            /// The raw value as stored in a record.
            #[must_use]
            pub const fn to_raw(self) -> u32 {
                self.0
            }

            /// Whether every flag of `other` is set.
            #[must_use]
            pub const fn contains(self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }

            /// Whether any flag of `other` is set.
            #[must_use]
            pub const fn intersects(self, other: Self) -> bool {
                self.0 & other.0 != 0
            }

            /// Whether no flag is set.
            #[must_use]
            pub const fn is_empty(self) -> bool {
                self.0 == 0
            }

            /// The flags set in either.
            #[must_use]
            pub const fn union(self, other: Self) -> Self {
                Self(self.0 | other.0)
            }

            /// The bits set that this version does not name (0 when there are none).
            #[must_use]
            pub const fn unknown_bits(self) -> u32 {
                self.0 & !Self::KNOWN.0
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let mut first = true;
                let mut sep = |f: &mut core::fmt::Formatter<'_>| {
                    let s = if first { "" } else { " | " };
                    first = false;
                    f.write_str(s)
                };
                f.write_str(concat!(stringify!($name), "("))?;
                $(
                    if self.contains(Self::$flag) && $value != 0 {
                        sep(f)?;
                        f.write_str(stringify!($flag))?;
                    }
                )*
                if self.unknown_bits() != 0 {
                    sep(f)?;
                    write!(f, "{:#x}", self.unknown_bits())?;
                }
                f.write_str(")")
            }
        }

        impl core::ops::BitOr for $name {
            type Output = Self;
            fn bitor(self, rhs: Self) -> Self {
                self.union(rhs)
            }
        }

        impl core::ops::BitOrAssign for $name {
            fn bitor_assign(&mut self, rhs: Self) {
                *self = self.union(rhs);
            }
        }

        impl core::ops::BitAnd for $name {
            type Output = Self;
            fn bitand(self, rhs: Self) -> Self {
                Self(self.0 & rhs.0)
            }
        }

        impl From<u32> for $name {
            fn from(raw: u32) -> Self {
                Self::from_raw(raw)
            }
        }

        impl From<$name> for u32 {
            fn from(value: $name) -> u32 {
                value.to_raw()
            }
        }
    };
}
pub(crate) use raw_flags;

named_raw_enum! {
    /// A pipeline stage (`SlangStage`), named in lower case as `slangpack dump --json` and the
    /// command line spell it (`vertex`, `fragment`, `raygeneration`, ...).
    ///
    /// [`Stage::vk_stage_flags`] gives the `VkShaderStageFlags` bit of a stage.
    pub enum Stage {
        /// `SLANG_STAGE_NONE`.
        None = 0 => "none",
        /// `SLANG_STAGE_VERTEX`.
        Vertex = 1 => "vertex",
        /// `SLANG_STAGE_HULL` (tessellation control).
        Hull = 2 => "hull",
        /// `SLANG_STAGE_DOMAIN` (tessellation evaluation).
        Domain = 3 => "domain",
        /// `SLANG_STAGE_GEOMETRY`.
        Geometry = 4 => "geometry",
        /// `SLANG_STAGE_FRAGMENT` (pixel).
        Fragment = 5 => "fragment",
        /// `SLANG_STAGE_COMPUTE`.
        Compute = 6 => "compute",
        /// `SLANG_STAGE_RAY_GENERATION`.
        RayGeneration = 7 => "raygeneration",
        /// `SLANG_STAGE_INTERSECTION`.
        Intersection = 8 => "intersection",
        /// `SLANG_STAGE_ANY_HIT`.
        AnyHit = 9 => "anyhit",
        /// `SLANG_STAGE_CLOSEST_HIT`.
        ClosestHit = 10 => "closesthit",
        /// `SLANG_STAGE_MISS`.
        Miss = 11 => "miss",
        /// `SLANG_STAGE_CALLABLE`.
        Callable = 12 => "callable",
        /// `SLANG_STAGE_MESH`.
        Mesh = 13 => "mesh",
        /// `SLANG_STAGE_AMPLIFICATION` (task).
        Amplification = 14 => "amplification",
        /// `SLANG_STAGE_DISPATCH`.
        Dispatch = 15 => "dispatch",
    }
}

raw_enum! {
    /// The kind of a type (`SlangTypeKind`).
    pub enum TypeKind {
        /// `SLANG_TYPE_KIND_NONE`.
        None = 0,
        /// `SLANG_TYPE_KIND_STRUCT`.
        Struct = 1,
        /// `SLANG_TYPE_KIND_ARRAY`.
        Array = 2,
        /// `SLANG_TYPE_KIND_MATRIX`.
        Matrix = 3,
        /// `SLANG_TYPE_KIND_VECTOR`.
        Vector = 4,
        /// `SLANG_TYPE_KIND_SCALAR`.
        Scalar = 5,
        /// `SLANG_TYPE_KIND_CONSTANT_BUFFER`.
        ConstantBuffer = 6,
        /// `SLANG_TYPE_KIND_RESOURCE`.
        Resource = 7,
        /// `SLANG_TYPE_KIND_SAMPLER_STATE`.
        SamplerState = 8,
        /// `SLANG_TYPE_KIND_TEXTURE_BUFFER`.
        TextureBuffer = 9,
        /// `SLANG_TYPE_KIND_SHADER_STORAGE_BUFFER`.
        ShaderStorageBuffer = 10,
        /// `SLANG_TYPE_KIND_PARAMETER_BLOCK`.
        ParameterBlock = 11,
        /// `SLANG_TYPE_KIND_GENERIC_TYPE_PARAMETER`.
        GenericTypeParameter = 12,
        /// `SLANG_TYPE_KIND_INTERFACE`.
        Interface = 13,
        /// `SLANG_TYPE_KIND_OUTPUT_STREAM`.
        OutputStream = 14,
        /// `SLANG_TYPE_KIND_MESH_OUTPUT`.
        MeshOutput = 15,
        /// `SLANG_TYPE_KIND_SPECIALIZED`.
        Specialized = 16,
        /// `SLANG_TYPE_KIND_FEEDBACK`.
        Feedback = 17,
        /// `SLANG_TYPE_KIND_POINTER`.
        Pointer = 18,
        /// `SLANG_TYPE_KIND_DYNAMIC_RESOURCE`.
        DynamicResource = 19,
        /// `SLANG_TYPE_KIND_ENUM`.
        Enum = 20,
    }
}

raw_enum! {
    /// A scalar type (`SlangScalarType`).
    pub enum ScalarType {
        /// `SLANG_SCALAR_TYPE_NONE`.
        None = 0,
        /// `SLANG_SCALAR_TYPE_VOID`.
        Void = 1,
        /// `SLANG_SCALAR_TYPE_BOOL`.
        Bool = 2,
        /// `SLANG_SCALAR_TYPE_INT32`.
        Int32 = 3,
        /// `SLANG_SCALAR_TYPE_UINT32`.
        UInt32 = 4,
        /// `SLANG_SCALAR_TYPE_INT64`.
        Int64 = 5,
        /// `SLANG_SCALAR_TYPE_UINT64`.
        UInt64 = 6,
        /// `SLANG_SCALAR_TYPE_FLOAT16`.
        Float16 = 7,
        /// `SLANG_SCALAR_TYPE_FLOAT32`.
        Float32 = 8,
        /// `SLANG_SCALAR_TYPE_FLOAT64`.
        Float64 = 9,
        /// `SLANG_SCALAR_TYPE_INT8`.
        Int8 = 10,
        /// `SLANG_SCALAR_TYPE_UINT8`.
        UInt8 = 11,
        /// `SLANG_SCALAR_TYPE_INT16`.
        Int16 = 12,
        /// `SLANG_SCALAR_TYPE_UINT16`.
        UInt16 = 13,
        /// `SLANG_SCALAR_TYPE_INTPTR`.
        IntPtr = 14,
        /// `SLANG_SCALAR_TYPE_UINTPTR`.
        UIntPtr = 15,
    }
}

impl ScalarType {
    /// Bytes of one value as a specialization constant or vertex component: 4 for `bool`
    /// (`VkBool32`) and 32-bit types, 8 for 64-bit, 2 for 16-bit, 1 for 8-bit; `None` for
    /// `None`, `Void`, pointer-sized and unknown types.
    #[must_use]
    pub const fn byte_size(self) -> Option<u32> {
        match self {
            Self::Bool | Self::Int32 | Self::UInt32 | Self::Float32 => Some(4),
            Self::Int64 | Self::UInt64 | Self::Float64 => Some(8),
            Self::Float16 | Self::Int16 | Self::UInt16 => Some(2),
            Self::Int8 | Self::UInt8 => Some(1),
            _ => None,
        }
    }
}

raw_enum! {
    /// A layout resource category (`SlangParameterCategory`).
    pub enum ParameterCategory {
        /// `SLANG_PARAMETER_CATEGORY_NONE`.
        None = 0,
        /// `SLANG_PARAMETER_CATEGORY_MIXED`.
        Mixed = 1,
        /// `SLANG_PARAMETER_CATEGORY_CONSTANT_BUFFER`.
        ConstantBuffer = 2,
        /// `SLANG_PARAMETER_CATEGORY_SHADER_RESOURCE`.
        ShaderResource = 3,
        /// `SLANG_PARAMETER_CATEGORY_UNORDERED_ACCESS`.
        UnorderedAccess = 4,
        /// `SLANG_PARAMETER_CATEGORY_VARYING_INPUT`.
        VaryingInput = 5,
        /// `SLANG_PARAMETER_CATEGORY_VARYING_OUTPUT`.
        VaryingOutput = 6,
        /// `SLANG_PARAMETER_CATEGORY_SAMPLER_STATE`.
        SamplerState = 7,
        /// `SLANG_PARAMETER_CATEGORY_UNIFORM` (offsets in bytes).
        Uniform = 8,
        /// `SLANG_PARAMETER_CATEGORY_DESCRIPTOR_TABLE_SLOT` (Vulkan bindings).
        DescriptorTableSlot = 9,
        /// `SLANG_PARAMETER_CATEGORY_SPECIALIZATION_CONSTANT`.
        SpecializationConstant = 10,
        /// `SLANG_PARAMETER_CATEGORY_PUSH_CONSTANT_BUFFER`.
        PushConstantBuffer = 11,
        /// `SLANG_PARAMETER_CATEGORY_REGISTER_SPACE` (Vulkan sets).
        RegisterSpace = 12,
        /// `SLANG_PARAMETER_CATEGORY_GENERIC`.
        Generic = 13,
        /// `SLANG_PARAMETER_CATEGORY_RAY_PAYLOAD`.
        RayPayload = 14,
        /// `SLANG_PARAMETER_CATEGORY_HIT_ATTRIBUTES`.
        HitAttributes = 15,
        /// `SLANG_PARAMETER_CATEGORY_CALLABLE_PAYLOAD`.
        CallablePayload = 16,
        /// `SLANG_PARAMETER_CATEGORY_SHADER_RECORD`.
        ShaderRecord = 17,
        /// `SLANG_PARAMETER_CATEGORY_EXISTENTIAL_TYPE_PARAM`.
        ExistentialTypeParam = 18,
        /// `SLANG_PARAMETER_CATEGORY_EXISTENTIAL_OBJECT_PARAM`.
        ExistentialObjectParam = 19,
        /// `SLANG_PARAMETER_CATEGORY_SUB_ELEMENT_REGISTER_SPACE`.
        SubElementRegisterSpace = 20,
        /// `SLANG_PARAMETER_CATEGORY_SUBPASS`.
        Subpass = 21,
        /// `SLANG_PARAMETER_CATEGORY_METAL_ARGUMENT_BUFFER_ELEMENT`.
        MetalArgumentBufferElement = 22,
        /// `SLANG_PARAMETER_CATEGORY_METAL_ATTRIBUTE`.
        MetalAttribute = 23,
        /// `SLANG_PARAMETER_CATEGORY_METAL_PAYLOAD`.
        MetalPayload = 24,
    }
}

raw_enum! {
    /// The kind of an API binding range (`SlangBindingType`), including the mutable flag `0x100`.
    pub enum BindingType {
        /// `SLANG_BINDING_TYPE_UNKNOWN`.
        Unspecified = 0,
        /// `SLANG_BINDING_TYPE_SAMPLER`.
        Sampler = 1,
        /// `SLANG_BINDING_TYPE_TEXTURE`.
        Texture = 2,
        /// `SLANG_BINDING_TYPE_CONSTANT_BUFFER`.
        ConstantBuffer = 3,
        /// `SLANG_BINDING_TYPE_PARAMETER_BLOCK`.
        ParameterBlock = 4,
        /// `SLANG_BINDING_TYPE_TYPED_BUFFER`.
        TypedBuffer = 5,
        /// `SLANG_BINDING_TYPE_RAW_BUFFER`.
        RawBuffer = 6,
        /// `SLANG_BINDING_TYPE_COMBINED_TEXTURE_SAMPLER`.
        CombinedTextureSampler = 7,
        /// `SLANG_BINDING_TYPE_INPUT_RENDER_TARGET`.
        InputRenderTarget = 8,
        /// `SLANG_BINDING_TYPE_INLINE_UNIFORM_DATA`.
        InlineUniformData = 9,
        /// `SLANG_BINDING_TYPE_RAY_TRACING_ACCELERATION_STRUCTURE`.
        RayTracingAccelerationStructure = 10,
        /// `SLANG_BINDING_TYPE_VARYING_INPUT`.
        VaryingInput = 11,
        /// `SLANG_BINDING_TYPE_VARYING_OUTPUT`.
        VaryingOutput = 12,
        /// `SLANG_BINDING_TYPE_EXISTENTIAL_VALUE`.
        ExistentialValue = 13,
        /// `SLANG_BINDING_TYPE_PUSH_CONSTANT`.
        PushConstant = 14,
        /// `SLANG_BINDING_TYPE_MUTABLE_TETURE` (sic, `TEXTURE | MUTABLE_FLAG`).
        MutableTexture = 0x102,
        /// `SLANG_BINDING_TYPE_MUTABLE_TYPED_BUFFER`.
        MutableTypedBuffer = 0x105,
        /// `SLANG_BINDING_TYPE_MUTABLE_RAW_BUFFER`.
        MutableRawBuffer = 0x106,
    }
}

impl BindingType {
    /// `SLANG_BINDING_TYPE_MUTABLE_FLAG`.
    pub const MUTABLE_FLAG: u32 = 0x100;
    /// `SLANG_BINDING_TYPE_BASE_MASK`.
    pub const BASE_MASK: u32 = 0xFF;
}

raw_enum! {
    /// The base shape of a resource (`SlangResourceShape & SLANG_RESOURCE_BASE_SHAPE_MASK`).
    ///
    /// The stored value keeps the flag bits too; see [`ResourceShape::base`] and the `*_FLAG`
    /// constants.
    pub enum ResourceShape {
        /// `SLANG_RESOURCE_NONE`.
        None = 0x00,
        /// `SLANG_TEXTURE_1D`.
        Texture1D = 0x01,
        /// `SLANG_TEXTURE_2D`.
        Texture2D = 0x02,
        /// `SLANG_TEXTURE_3D`.
        Texture3D = 0x03,
        /// `SLANG_TEXTURE_CUBE`.
        TextureCube = 0x04,
        /// `SLANG_TEXTURE_BUFFER`.
        TextureBuffer = 0x05,
        /// `SLANG_STRUCTURED_BUFFER`.
        StructuredBuffer = 0x06,
        /// `SLANG_BYTE_ADDRESS_BUFFER`.
        ByteAddressBuffer = 0x07,
        /// `SLANG_RESOURCE_UNKNOWN`.
        ResourceUnknown = 0x08,
        /// `SLANG_ACCELERATION_STRUCTURE`.
        AccelerationStructure = 0x09,
        /// `SLANG_TEXTURE_SUBPASS`.
        TextureSubpass = 0x0A,
    }
}

impl ResourceShape {
    /// `SLANG_RESOURCE_BASE_SHAPE_MASK`.
    pub const BASE_MASK: u32 = 0x0F;
    /// `SLANG_TEXTURE_FEEDBACK_FLAG`.
    pub const FEEDBACK_FLAG: u32 = 0x10;
    /// `SLANG_TEXTURE_SHADOW_FLAG`.
    pub const SHADOW_FLAG: u32 = 0x20;
    /// `SLANG_TEXTURE_ARRAY_FLAG`.
    pub const ARRAY_FLAG: u32 = 0x40;
    /// `SLANG_TEXTURE_MULTISAMPLE_FLAG`.
    pub const MULTISAMPLE_FLAG: u32 = 0x80;

    /// The base shape of a full raw shape value (flags stripped).
    #[must_use]
    pub const fn base(raw: u32) -> Self {
        Self::from_raw(raw & Self::BASE_MASK)
    }
}

raw_enum! {
    /// How a resource is accessed (`SlangResourceAccess`).
    pub enum ResourceAccess {
        /// `SLANG_RESOURCE_ACCESS_NONE`.
        None = 0,
        /// `SLANG_RESOURCE_ACCESS_READ`.
        Read = 1,
        /// `SLANG_RESOURCE_ACCESS_READ_WRITE`.
        ReadWrite = 2,
        /// `SLANG_RESOURCE_ACCESS_RASTER_ORDERED`.
        RasterOrdered = 3,
        /// `SLANG_RESOURCE_ACCESS_APPEND`.
        Append = 4,
        /// `SLANG_RESOURCE_ACCESS_CONSUME`.
        Consume = 5,
        /// `SLANG_RESOURCE_ACCESS_WRITE`.
        Write = 6,
        /// `SLANG_RESOURCE_ACCESS_FEEDBACK`.
        Feedback = 7,
        /// `SLANG_RESOURCE_ACCESS_UNKNOWN`.
        AccessUnknown = 0x7FFF_FFFF,
    }
}

raw_enum! {
    /// Matrix layout (`SlangMatrixLayoutMode`).
    pub enum MatrixLayout {
        /// `SLANG_MATRIX_LAYOUT_MODE_UNKNOWN`.
        Unspecified = 0,
        /// `SLANG_MATRIX_LAYOUT_ROW_MAJOR`.
        RowMajor = 1,
        /// `SLANG_MATRIX_LAYOUT_COLUMN_MAJOR`.
        ColumnMajor = 2,
    }
}

raw_enum! {
    /// The kind of a declaration (`SlangDeclKind`).
    pub enum DeclKind {
        /// `SLANG_DECL_KIND_UNSUPPORTED_FOR_REFLECTION`.
        Unsupported = 0,
        /// `SLANG_DECL_KIND_STRUCT`; payload indexes `types()`.
        Struct = 1,
        /// `SLANG_DECL_KIND_FUNC`; payload indexes `functions()`.
        Func = 2,
        /// `SLANG_DECL_KIND_MODULE`; no payload.
        Module = 3,
        /// `SLANG_DECL_KIND_GENERIC`; payload indexes `generics()`.
        Generic = 4,
        /// `SLANG_DECL_KIND_VARIABLE`; payload indexes `variables()`.
        Variable = 5,
        /// `SLANG_DECL_KIND_NAMESPACE`; no payload.
        Namespace = 6,
        /// `SLANG_DECL_KIND_ENUM`; payload indexes `types()`.
        Enum = 7,
    }
}

raw_enum! {
    /// A declaration modifier (`SlangModifierID`).
    pub enum ModifierId {
        /// `SLANG_MODIFIER_SHARED`.
        Shared = 0,
        /// `SLANG_MODIFIER_NO_DIFF`.
        NoDiff = 1,
        /// `SLANG_MODIFIER_STATIC`.
        Static = 2,
        /// `SLANG_MODIFIER_CONST`.
        Const = 3,
        /// `SLANG_MODIFIER_EXPORT`.
        Export = 4,
        /// `SLANG_MODIFIER_EXTERN`.
        Extern = 5,
        /// `SLANG_MODIFIER_DIFFERENTIABLE`.
        Differentiable = 6,
        /// `SLANG_MODIFIER_MUTATING`.
        Mutating = 7,
        /// `SLANG_MODIFIER_IN`.
        In = 8,
        /// `SLANG_MODIFIER_OUT`.
        Out = 9,
        /// `SLANG_MODIFIER_INOUT`.
        InOut = 10,
    }
}

raw_enum! {
    /// The kind of a user-attribute argument or default value (slangpack's own values).
    pub enum ValueKind {
        /// No value.
        None = 0,
        /// A 32/64-bit signed integer (`value_lo`/`value_hi`, sign-extended).
        Int = 1,
        /// A float (`f64` bits in `value_lo`/`value_hi`).
        Float = 2,
        /// A string: `value_lo` is a string index.
        String = 3,
        /// A boolean (`value_lo` is 0 or 1).
        Bool = 4,
    }
}

raw_enum! {
    /// How a section's stored bytes are encoded (slangpack's own values).
    pub enum Compression {
        /// Stored as is: stored size equals raw size.
        None = 0,
        /// One zstd frame whose content is the raw bytes.
        Zstd = 1,
        /// One zstd frame compressed with the package's dictionary (the
        /// [`SectionKind::Dictionary`] section); since 1.1.
        ZstdDictionary = 2,
        /// A split reflection blob's frames (SPEC.md 6.1) with the package's two dictionaries:
        /// the first frame (the bind view) with the [`SectionKind::Dictionary`] section (or
        /// none when the package has no such section), the second (the raw tables) with the
        /// [`SectionKind::TablesDictionary`] section, so that loading a bind view never
        /// decompresses the dictionary of the raw tables; since 2.1.
        ZstdSplitDictionaries = 3,
        /// A split reflection blob's first frame alone (its bind view, with the
        /// [`SectionKind::Dictionary`] section or none), whose raw tables are those of another
        /// blob: the second frame of the section `record_count` before it in the directory,
        /// a reflection section stored [`Compression::ZstdSplitDictionaries`] (SPEC.md 4.2);
        /// since 2.5.
        ZstdSharedTables = 4,
        /// A SPIR-V module packed (SPEC.md 4.3, [`crate::pack_spirv`]) as one zstd frame of at
        /// most [`crate::packed_spirv_bound`] bytes of the raw size, which is the module's.
        /// SPIR-V sections only; since 2.6.
        ZstdPackedSpirv = 5,
        /// The same, compressed with the package's dictionary (the [`SectionKind::Dictionary`]
        /// section); since 2.6.
        ZstdDictionaryPackedSpirv = 6,
        /// A SPIR-V module in a module run (SPEC.md 5.6.2): no stored bytes of its own (stored
        /// size 0); its packed bytes lie in the frame of the next section in the directory not
        /// stored so, a SPIR-V section stored [`Compression::ZstdPackedSpirv`] or
        /// [`Compression::ZstdDictionaryPackedSpirv`], before that module's own. SPIR-V
        /// sections only; since 2.7.
        InModuleRun = 7,
        /// A split reflection blob's bind view in a bind-view run (SPEC.md 6.1.1): no stored
        /// bytes of its own (stored size 0); its bind view (the blob's first `tables_offset`
        /// bytes) lies in the frame of the next section in the directory not stored so, a
        /// reflection section stored [`Compression::ZstdSharedTables`], before that blob's
        /// own, and its raw tables are those of the section `record_count` before it, as for
        /// [`Compression::ZstdSharedTables`]. Reflection sections only; since 2.8.
        InBindRun = 8,
    }
}

impl Compression {
    /// Whether the stored bytes are zstd frames (every known value but `None`).
    #[must_use]
    pub const fn is_zstd(self) -> bool {
        matches!(
            self,
            Self::Zstd
                | Self::ZstdDictionary
                | Self::ZstdSplitDictionaries
                | Self::ZstdSharedTables
                | Self::ZstdPackedSpirv
                | Self::ZstdDictionaryPackedSpirv
        )
    }

    /// Whether the stored frame holds a packed SPIR-V module (2.6).
    #[must_use]
    pub const fn is_packed_spirv(self) -> bool {
        matches!(
            self,
            Self::ZstdPackedSpirv | Self::ZstdDictionaryPackedSpirv
        )
    }

    /// Whether the stored frame was compressed with the package's dictionary.
    #[must_use]
    pub const fn uses_dictionary(self) -> bool {
        matches!(
            self,
            Self::ZstdDictionary
                | Self::ZstdSplitDictionaries
                | Self::ZstdSharedTables
                | Self::ZstdDictionaryPackedSpirv
        )
    }
}

raw_enum! {
    /// The kind of a package section (slangpack's own values).
    pub enum SectionKind {
        /// The package string pool (entry keys, names, dependency paths).
        Strings = 1,
        /// The entries table ([`crate::EntryRecord`]).
        Entries = 2,
        /// The key index ([`crate::KeyIndexRecord`]), sorted by key hash.
        KeyIndex = 3,
        /// The entry points table ([`crate::EntryPointRecord`]).
        EntryPoints = 4,
        /// The dependency table ([`crate::DependencyRecord`]).
        Dependencies = 5,
        /// One SPIR-V module (u32 words); the n-th SPIR-V section is SPIR-V blob n.
        Spirv = 6,
        /// One reflection blob; the n-th reflection section is reflection blob n.
        Reflection = 7,
        /// One entry point's code for a target other than SPIR-V (UTF-8 text for the text
        /// targets, bytes for binary ones); the n-th target-code section is code blob n.
        TargetCode = 8,
        /// The entry-point targets table ([`crate::EntryPointTargetRecord`]): which code blob
        /// holds each entry point's code for each further target.
        EntryPointTargets = 9,
        /// The zstd dictionary that sections compressed with
        /// [`Compression::ZstdDictionary`] use (at most one); since 1.1.
        Dictionary = 10,
        /// Which slice of which bake plan a sharded bake's package holds
        /// ([`crate::ShardRecord`], at most one): what `merge` checks its inputs against.
        /// Readers need nothing from it and may skip it like an unknown kind.
        ShardPlan = 11,
        /// The zstd dictionary of the raw tables of reflection blobs stored
        /// [`Compression::ZstdSplitDictionaries`] (at most one); since 2.1.
        TablesDictionary = 12,
    }
}

impl SectionKind {
    /// The container sections, the string pool and the package tables, in the order writers
    /// place them: exactly one of each in every package (SPEC.md 4.1), and the sections a
    /// compressed index holds (4.4). The one list of them.
    pub const CONTAINERS: [SectionKind; 5] = [
        Self::Strings,
        Self::Entries,
        Self::KeyIndex,
        Self::EntryPoints,
        Self::Dependencies,
    ];

    /// This kind's place in [`Self::CONTAINERS`]; `None` for every other kind.
    ///
    /// ```
    /// use slangpack_format::SectionKind;
    /// assert_eq!(SectionKind::Entries.container_slot(), Some(1));
    /// assert_eq!(SectionKind::Spirv.container_slot(), None);
    /// ```
    #[must_use]
    pub const fn container_slot(self) -> Option<usize> {
        if matches!(self, Self::Unknown(_)) {
            return None;
        }
        let mut rest: &[SectionKind] = &Self::CONTAINERS;
        let mut i = 0;
        while let [kind, tail @ ..] = rest {
            if kind.to_raw() == self.to_raw() {
                return Some(i);
            }
            (rest, i) = (tail, i + 1);
        }
        None
    }

    /// Whether this is a container section (one of [`Self::CONTAINERS`]: the sections a
    /// compressed index holds, SPEC.md 4.4).
    ///
    /// ```
    /// use slangpack_format::SectionKind;
    /// assert!(SectionKind::KeyIndex.is_container());
    /// assert!(!SectionKind::Spirv.is_container());
    /// ```
    #[must_use]
    pub const fn is_container(self) -> bool {
        self.container_slot().is_some()
    }
}

raw_enum! {
    /// A code target a package can hold code for (slangpack's own values).
    ///
    /// SPIR-V is every entry point's primary code ([`crate::EntryPointRecord::spirv`]); the
    /// others are stored per entry point in `TargetCode` sections. `Dxil` is never produced by
    /// the writer (it needs Microsoft's `dxc`) but has its value so that a DXIL blob baked
    /// elsewhere can be added without a format change.
    pub enum Target {
        /// SPIR-V words (Vulkan).
        Spirv = 1,
        /// WGSL text (WebGPU, wgpu).
        Wgsl = 2,
        /// GLSL text (OpenGL / Vulkan GLSL).
        Glsl = 3,
        /// HLSL text (Direct3D).
        Hlsl = 4,
        /// Metal Shading Language text.
        Metal = 5,
        /// DXIL bytes (Direct3D 12), binary.
        Dxil = 6,
    }
}

impl Target {
    /// Every target this version names, in value order.
    pub const ALL: [Target; 6] = [
        Target::Spirv,
        Target::Wgsl,
        Target::Glsl,
        Target::Hlsl,
        Target::Metal,
        Target::Dxil,
    ];

    /// The lower-case name used on the command line, in manifests and in JSON (`spirv`,
    /// `wgsl`, `glsl`, `hlsl`, `metal`, `dxil`; `unknown` for values this version does not
    /// name).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Target::Spirv => "spirv",
            Target::Wgsl => "wgsl",
            Target::Glsl => "glsl",
            Target::Hlsl => "hlsl",
            Target::Metal => "metal",
            Target::Dxil => "dxil",
            Target::Unknown(_) => "unknown",
        }
    }

    /// The target named `name` (as [`Target::name`] gives it), if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether the target's code is UTF-8 text (WGSL, GLSL, HLSL, Metal), checked at open.
    #[must_use]
    pub const fn is_text(self) -> bool {
        matches!(
            self,
            Target::Wgsl | Target::Glsl | Target::Hlsl | Target::Metal
        )
    }

    /// Whether the target's buffers have the member layout of the Vulkan bind view (offsets,
    /// sizes, array and matrix strides of 6.7's `BufferMember`s): SPIR-V itself, WGSL (naga's
    /// layout of the code checked against it at bake time) and GLSL (spirv-cross's reflection
    /// of glslang's SPIR-V of the code checked against it). Not HLSL, whose constant-buffer
    /// packing does not pad arrays and structs to 16 bytes, nor Metal, whose `float3` takes 16
    /// bytes: a package of this version holds no member layout for them (nor for DXIL or a
    /// target it does not name), and a reader must not hand out the Vulkan one in its place.
    #[must_use]
    pub const fn shares_vulkan_member_layout(self) -> bool {
        matches!(self, Target::Spirv | Target::Wgsl | Target::Glsl)
    }
}

raw_enum! {
    /// What a binding is on a target ([`crate::targets::TargetBinding::kind`]); the names
    /// follow WebGPU's binding types.
    pub enum TargetBindingKind {
        /// A uniform (constant) buffer: WGSL `var<uniform>`, HLSL `cbuffer`/`b` register.
        UniformBuffer = 1,
        /// A storage buffer: WGSL `var<storage>`, a structured or byte-address buffer.
        StorageBuffer = 2,
        /// A sampler (comparison samplers carry a flag).
        Sampler = 3,
        /// A sampled texture.
        Texture = 4,
        /// A storage (read-write) texture.
        StorageTexture = 5,
        /// A push-constant block (GLSL `layout(push_constant)`): no slot of its own.
        PushConstants = 6,
        /// A Metal argument buffer: a ParameterBlock, at a `[[buffer(n)]]` or inside another
        /// argument buffer; its `format` field is its id, the `space` of its members.
        ArgumentBuffer = 7,
    }
}

named_raw_enum! {
    /// What a member of a Metal argument buffer's struct is
    /// ([`crate::targets::ArgumentBufferMember::kind`], since 1.5): how an engine encodes it
    /// into a tier-2 argument buffer.
    pub enum ArgumentMemberKind {
        /// Plain data (a scalar, vector, matrix or an array of them), written by Metal's
        /// layout rules.
        Data = 1 => "data",
        /// A struct: its members follow, under its path.
        Struct = 2 => "struct",
        /// A buffer: an 8-byte `device` or `constant` pointer (its GPU address).
        Buffer = 3 => "buffer",
        /// A texture: an 8-byte `MTLResourceID`.
        Texture = 4 => "texture",
        /// A sampler: an 8-byte `MTLResourceID`.
        Sampler = 5 => "sampler",
        /// A nested argument buffer (a ParameterBlock inside a ParameterBlock): an 8-byte
        /// `constant` pointer to its own struct, whose members its own record lists.
        ArgumentBuffer = 6 => "argument_buffer",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_round_trip_and_unknown() {
        assert_eq!(Stage::from_raw(6), Stage::Compute);
        assert_eq!(Stage::from_raw(99), Stage::Unknown(99));
        assert_eq!(Stage::Unknown(99).to_raw(), 99);
        assert_eq!(BindingType::from_raw(0x102), BindingType::MutableTexture);
        assert_eq!(ResourceShape::base(0x42), ResourceShape::Texture2D);
        assert_eq!(
            ParameterCategory::from_raw(12),
            ParameterCategory::RegisterSpace
        );
        assert_eq!(u32::from(crate::TableKind::StringBytes), 19);
    }
}
