//! Pipeline facts of the bind view: vertex inputs, specialization constants, shader-record
//! blocks, fragment outputs and execution modes (SPEC 6.7).

use super::*;

record! {
    /// One vertex input attribute of a vertex entry point (system values excluded).
    pub struct VertexInput [40] {
        /// The entry point (index into the entry's entry points).
        pub entry_point: u32,
        /// First location.
        pub location: u32,
        /// Locations used (a matrix input spans one per column or row).
        pub location_count: u32,
        /// `VkFormat` raw value of one location, 0 when there is none.
        pub format: u32,
        /// `SlangScalarType` raw value.
        pub scalar_type: u32,
        /// Components per location.
        pub component_count: u32,
        /// Semantic name without its index (`TEXCOORD`). String index.
        #[refs(string)]
        pub semantic_name: u32,
        /// Semantic index (`TEXCOORD1` has 1).
        pub semantic_index: u32,
        /// Dotted path of the input (`input.uv0`). String index.
        #[refs(string)]
        pub name: u32,
        /// [`VertexInputFlags`].
        pub flags: u32,
    }
}

raw_flags! {
    /// [`VertexInput::flags`].
    pub struct VertexInputFlags {
        /// The entry point's SPIR-V declares the input: the compiled code reads it (Slang
        /// drops unused inputs from the SPIR-V; feeding one anyway draws a validation-layer
        /// warning).
        const USED = 1;
    }
}

/// [`VertexInputFlags::USED`] as a raw value.
pub const VERTEX_INPUT_USED: u32 = VertexInputFlags::USED.to_raw();

record! {
    /// A specialization constant.
    pub struct SpecializationConstant [24] {
        /// The constant id (`VkSpecializationMapEntry::constantID`).
        pub id: u32,
        /// Its name. String index.
        #[refs(string)]
        pub name: u32,
        /// `SlangScalarType` raw value.
        pub scalar_type: u32,
        /// Default value bits, low half (an `f64` for float types, else an `i64`).
        pub default_lo: u32,
        /// Default value bits, high half.
        pub default_hi: u32,
        /// [`SpecializationFlags`].
        pub flags: u32,
    }
}

raw_flags! {
    /// [`SpecializationConstant::flags`].
    pub struct SpecializationFlags {
        /// The constant has a default value (in `default_lo`/`default_hi`).
        const HAS_DEFAULT = 1;
        /// The default is an `f64` (bits), else an `i64`.
        const DEFAULT_IS_FLOAT = 2;
    }
}

record! {
    /// A shader-record block (`[[vk::shader_record]] ConstantBuffer<T> sbt;`) of ray-tracing
    /// stages: data the shader reads from its record in the shader binding table, after the
    /// shader group handle. Not a descriptor: it has no set or binding.
    pub struct ShaderRecordBlock [24] {
        /// The block parameter's path, string index.
        #[refs(string)]
        pub name: u32,
        /// Byte size of the data (from the record's data start).
        pub size: u32,
        /// `VkShaderStageFlags` of the entry points whose SPIR-V declares the block.
        pub stage_flags: u32,
        /// Bit `i` set: entry point `i`'s SPIR-V declares the block.
        pub entry_point_mask: u32,
        /// The block's buffer layout (index into buffer layouts, kind
        /// [`BufferKind::ShaderRecord`]).
        #[refs(index BufferLayouts)]
        pub buffer_layout: u32,
        /// Reserved, zero.
        pub reserved: u32,
    }
}

record! {
    /// One colour output of a fragment entry point, from its SPIR-V: an `Output` variable with
    /// a `Location` (`SV_Target<N>`; built-ins such as `SV_Depth` have none and are stated by
    /// [`ExecutionModes`]). What a pipeline's colour attachments must match: one per
    /// location, of a format whose numeric type (float, signed or unsigned integer) is the
    /// output's. Since 1.3.
    pub struct FragmentOutput [24] {
        /// The entry point (index into the entry's entry points).
        pub entry_point: u32,
        /// `Location`: the colour attachment index.
        pub location: u32,
        /// `Index` (dual-source blending: 1 is the second source of location 0), else 0.
        pub index: u32,
        /// `SlangScalarType` raw value of one component (float32, int32, uint32, float16, ...).
        pub scalar_type: u32,
        /// Components (1 to 4).
        pub component_count: u32,
        /// The variable's name in the SPIR-V (Slang's name for it), string index.
        #[refs(string)]
        pub name: u32,
    }
}

record! {
    /// How one entry point's SPIR-V executes, from its `OpExecutionMode`s and capabilities:
    /// the facts pipeline creation needs beyond bindings — tessellation output vertices,
    /// spacing and winding; geometry input and output primitives, maximum vertices and
    /// invocations; mesh output primitive and limits; early fragment tests and the depth
    /// mode; whether the module uses input attachments (a subpass, or dynamic rendering's
    /// local read). One per entry point, in entry-point order. Primitive and spacing fields
    /// hold the SPIR-V `ExecutionMode` value that states them, 0 when the module states none;
    /// counts are 0 when not stated. Since 1.3.
    pub struct ExecutionModes [32] {
        /// The entry point (index into the entry's entry points).
        pub entry_point: u32,
        /// [`ModeFlags`].
        pub flags: u32,
        /// Geometry input or tessellation domain: `InputPoints` 19, `InputLines` 20,
        /// `InputLinesAdjacency` 21, `Triangles` 22, `InputTrianglesAdjacency` 23, `Quads` 24,
        /// `Isolines` 25.
        pub input_primitive: u32,
        /// Geometry or mesh output: `OutputPoints` 27, `OutputLineStrip` 28,
        /// `OutputTriangleStrip` 29, `OutputLinesEXT` 5269, `OutputTrianglesEXT` 5298.
        pub output_primitive: u32,
        /// `OutputVertices`: a geometry stage's maximum vertices, a tessellation control
        /// stage's output patch size, a mesh stage's maximum vertices.
        pub output_vertices: u32,
        /// `OutputPrimitivesEXT`: a mesh stage's maximum primitives.
        pub output_primitives: u32,
        /// `Invocations`: a geometry stage's instance count.
        pub invocations: u32,
        /// Tessellation spacing: `SpacingEqual` 1, `SpacingFractionalEven` 2,
        /// `SpacingFractionalOdd` 3.
        pub spacing: u32,
    }
}

raw_flags! {
    /// [`ExecutionModes::flags`].
    pub struct ModeFlags {
        /// `EarlyFragmentTests` (`[earlydepthstencil]`).
        const EARLY_FRAGMENT_TESTS = 1;
        /// `DepthReplacing`: the fragment stage writes depth (`SV_Depth`).
        const DEPTH_REPLACING = 2;
        /// `DepthGreater` (`SV_DepthGreaterEqual`).
        const DEPTH_GREATER = 4;
        /// `DepthLess` (`SV_DepthLessEqual`).
        const DEPTH_LESS = 8;
        /// `DepthUnchanged`.
        const DEPTH_UNCHANGED = 16;
        /// `PointMode`: tessellation emits points.
        const POINT_MODE = 32;
        /// `VertexOrderCw`: tessellation emits clockwise triangles.
        const VERTEX_ORDER_CW = 64;
        /// `VertexOrderCcw`: tessellation emits counter-clockwise triangles.
        const VERTEX_ORDER_CCW = 128;
        /// The module declares the `InputAttachment` capability: it needs a render pass
        /// subpass (or `VK_KHR_dynamic_rendering_local_read`); plain dynamic rendering refuses
        /// it (`VUID-VkGraphicsPipelineCreateInfo-renderPass-06061`), even when no input
        /// attachment is read.
        const INPUT_ATTACHMENT_CAPABILITY = 256;
        /// The entry point's code reads an input attachment (an input-attachment variable is
        /// in its interface or used by its functions).
        const READS_INPUT_ATTACHMENTS = 512;
        /// `PostDepthCoverage`.
        const POST_DEPTH_COVERAGE = 1024;
        /// The module declares the `SampleRateShading` capability (it reads `SV_SampleIndex`
        /// or interpolates at samples): the stage runs per sample.
        const SAMPLE_RATE_SHADING = 2048;
    }
}

named_raw_enum! {
    /// A primitive an [`ExecutionModes`] record states, by its SPIR-V `ExecutionMode` value,
    /// named as `slangpack dump --json` prints it.
    pub enum PrimitiveMode {
        /// `InputPoints`: a geometry stage reads points.
        InputPoints = 19 => "points",
        /// `InputLines`.
        InputLines = 20 => "lines",
        /// `InputLinesAdjacency`.
        InputLinesAdjacency = 21 => "lines_adjacency",
        /// `Triangles`: a geometry stage reads triangles, or the tessellation domain is
        /// triangles.
        Triangles = 22 => "triangles",
        /// `InputTrianglesAdjacency`.
        InputTrianglesAdjacency = 23 => "triangles_adjacency",
        /// `Quads`: the tessellation domain is quads.
        Quads = 24 => "quads",
        /// `Isolines`: the tessellation domain is isolines.
        Isolines = 25 => "isolines",
        /// `OutputPoints`: a geometry or mesh stage emits points.
        OutputPoints = 27 => "output_points",
        /// `OutputLineStrip`: a geometry stage emits line strips.
        OutputLineStrip = 28 => "output_line_strip",
        /// `OutputTriangleStrip`: a geometry stage emits triangle strips.
        OutputTriangleStrip = 29 => "output_triangle_strip",
        /// `OutputLinesEXT`: a mesh stage emits lines.
        OutputLines = 5269 => "output_lines",
        /// `OutputTrianglesEXT`: a mesh stage emits triangles.
        OutputTriangles = 5298 => "output_triangles",
    }
}

named_raw_enum! {
    /// Tessellation spacing ([`ExecutionModes::spacing`]), by its SPIR-V `ExecutionMode`
    /// value.
    pub enum Spacing {
        /// `SpacingEqual` (`partitioning("integer")`).
        Equal = 1 => "equal",
        /// `SpacingFractionalEven`.
        FractionalEven = 2 => "fractional_even",
        /// `SpacingFractionalOdd`.
        FractionalOdd = 3 => "fractional_odd",
    }
}

/// [`ModeFlags::EARLY_FRAGMENT_TESTS`] as a raw value.
pub const MODE_EARLY_FRAGMENT_TESTS: u32 = ModeFlags::EARLY_FRAGMENT_TESTS.to_raw();
/// [`ModeFlags::DEPTH_REPLACING`] as a raw value.
pub const MODE_DEPTH_REPLACING: u32 = ModeFlags::DEPTH_REPLACING.to_raw();
/// [`ModeFlags::DEPTH_GREATER`] as a raw value.
pub const MODE_DEPTH_GREATER: u32 = ModeFlags::DEPTH_GREATER.to_raw();
/// [`ModeFlags::DEPTH_LESS`] as a raw value.
pub const MODE_DEPTH_LESS: u32 = ModeFlags::DEPTH_LESS.to_raw();
/// [`ModeFlags::DEPTH_UNCHANGED`] as a raw value.
pub const MODE_DEPTH_UNCHANGED: u32 = ModeFlags::DEPTH_UNCHANGED.to_raw();
/// [`ModeFlags::POINT_MODE`] as a raw value.
pub const MODE_POINT_MODE: u32 = ModeFlags::POINT_MODE.to_raw();
/// [`ModeFlags::VERTEX_ORDER_CW`] as a raw value.
pub const MODE_VERTEX_ORDER_CW: u32 = ModeFlags::VERTEX_ORDER_CW.to_raw();
/// [`ModeFlags::VERTEX_ORDER_CCW`] as a raw value.
pub const MODE_VERTEX_ORDER_CCW: u32 = ModeFlags::VERTEX_ORDER_CCW.to_raw();
/// [`ModeFlags::INPUT_ATTACHMENT_CAPABILITY`] as a raw value.
pub const MODE_INPUT_ATTACHMENT_CAPABILITY: u32 = ModeFlags::INPUT_ATTACHMENT_CAPABILITY.to_raw();
/// [`ModeFlags::READS_INPUT_ATTACHMENTS`] as a raw value.
pub const MODE_READS_INPUT_ATTACHMENTS: u32 = ModeFlags::READS_INPUT_ATTACHMENTS.to_raw();
/// [`ModeFlags::POST_DEPTH_COVERAGE`] as a raw value.
pub const MODE_POST_DEPTH_COVERAGE: u32 = ModeFlags::POST_DEPTH_COVERAGE.to_raw();
/// [`ModeFlags::SAMPLE_RATE_SHADING`] as a raw value.
pub const MODE_SAMPLE_RATE_SHADING: u32 = ModeFlags::SAMPLE_RATE_SHADING.to_raw();

/// Every [`ModeFlags`] bit with the name `slangpack dump --json` gives it, in bit order.
pub const MODE_FLAG_NAMES: [(ModeFlags, &str); 12] = [
    (ModeFlags::EARLY_FRAGMENT_TESTS, "early_fragment_tests"),
    (ModeFlags::DEPTH_REPLACING, "depth_replacing"),
    (ModeFlags::DEPTH_GREATER, "depth_greater"),
    (ModeFlags::DEPTH_LESS, "depth_less"),
    (ModeFlags::DEPTH_UNCHANGED, "depth_unchanged"),
    (ModeFlags::POINT_MODE, "point_mode"),
    (ModeFlags::VERTEX_ORDER_CW, "vertex_order_cw"),
    (ModeFlags::VERTEX_ORDER_CCW, "vertex_order_ccw"),
    (
        ModeFlags::INPUT_ATTACHMENT_CAPABILITY,
        "input_attachment_capability",
    ),
    (
        ModeFlags::READS_INPUT_ATTACHMENTS,
        "reads_input_attachments",
    ),
    (ModeFlags::POST_DEPTH_COVERAGE, "post_depth_coverage"),
    (ModeFlags::SAMPLE_RATE_SHADING, "sample_rate_shading"),
];

impl VertexInput {
    /// The `VkFormat` of one location.
    #[must_use]
    pub const fn vk_format(&self) -> Format {
        Format::from_raw(self.format)
    }

    /// The scalar type.
    #[must_use]
    pub const fn scalar(&self) -> ScalarType {
        ScalarType::from_raw(self.scalar_type)
    }

    /// The input's flags.
    #[must_use]
    pub const fn input_flags(&self) -> VertexInputFlags {
        VertexInputFlags::from_raw(self.flags)
    }

    /// Whether the entry point's compiled code reads the input.
    #[must_use]
    pub const fn is_used(&self) -> bool {
        self.input_flags().contains(VertexInputFlags::USED)
    }
}

impl FragmentOutput {
    /// The scalar type of one component.
    #[must_use]
    pub const fn scalar(&self) -> ScalarType {
        ScalarType::from_raw(self.scalar_type)
    }
}

impl ExecutionModes {
    /// The modes' flags.
    #[must_use]
    pub const fn mode_flags(&self) -> ModeFlags {
        ModeFlags::from_raw(self.flags)
    }

    /// The names of the flags that are set ([`MODE_FLAG_NAMES`]), in bit order.
    pub fn flag_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        MODE_FLAG_NAMES
            .iter()
            .filter(|(flag, _)| self.mode_flags().contains(*flag))
            .map(|(_, name)| *name)
    }

    /// The geometry input primitive or tessellation domain, if stated.
    #[must_use]
    pub const fn input_primitive(&self) -> Option<PrimitiveMode> {
        match self.input_primitive {
            0 => None,
            raw => Some(PrimitiveMode::from_raw(raw)),
        }
    }

    /// The geometry or mesh output primitive, if stated.
    #[must_use]
    pub const fn output_primitive(&self) -> Option<PrimitiveMode> {
        match self.output_primitive {
            0 => None,
            raw => Some(PrimitiveMode::from_raw(raw)),
        }
    }

    /// The tessellation spacing, if stated.
    #[must_use]
    pub const fn spacing(&self) -> Option<Spacing> {
        match self.spacing {
            0 => None,
            raw => Some(Spacing::from_raw(raw)),
        }
    }
}

impl SpecializationConstant {
    /// The scalar type.
    #[must_use]
    pub const fn scalar(&self) -> ScalarType {
        ScalarType::from_raw(self.scalar_type)
    }

    /// The constant's flags.
    #[must_use]
    pub const fn specialization_flags(&self) -> SpecializationFlags {
        SpecializationFlags::from_raw(self.flags)
    }

    /// The default value, if the constant has one.
    #[must_use]
    pub const fn default_value(&self) -> Option<DefaultValue> {
        let f = self.specialization_flags();
        DefaultValue::from_bits(
            f.contains(SpecializationFlags::HAS_DEFAULT),
            f.contains(SpecializationFlags::DEFAULT_IS_FLOAT),
            self.default_lo,
            self.default_hi,
        )
    }
}

impl ShaderRecordBlock {
    /// The stages whose SPIR-V declares the block (`VkShaderStageFlags`).
    #[must_use]
    pub const fn stages(&self) -> ShaderStageFlags {
        ShaderStageFlags::from_raw(self.stage_flags)
    }
}
