//! Code for targets other than SPIR-V (WGSL, GLSL, HLSL, Metal, DXIL) as an entry point serves
//! it, and the per-target bind views; served without allocation (the sections are loaded in
//! [`crate::package`]).

use crate::package::{EntryPoint, LoadedCode};
use slangpack_format::{EntryPointTargetRecord, Target};

/// One entry point's code for one target ([`EntryPoint::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetCode<'a> {
    target: Target,
    entry_name: &'a str,
    code: Code<'a>,
}

/// The code itself, by kind of target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code<'a> {
    /// SPIR-V words (zero-copy when stored uncompressed).
    Spirv(&'a [u32]),
    /// Source text (WGSL, GLSL, HLSL, Metal), UTF-8 checked at the entry's first load.
    Text(&'a str),
    /// A binary blob (DXIL).
    Binary(&'a [u8]),
}

impl<'a> TargetCode<'a> {
    /// The target.
    #[must_use]
    pub fn target(&self) -> Target {
        self.target
    }

    /// The entry point's name inside this code: pass it as the entry point to the API that
    /// takes the code (`wgpu::ComputePipelineDescriptor::entry_point`, `pName`, ...).
    #[must_use]
    pub fn entry_name(&self) -> &'a str {
        self.entry_name
    }

    /// The code.
    #[must_use]
    pub fn code(&self) -> Code<'a> {
        self.code
    }

    /// The code as text, for text targets; `None` for SPIR-V and binary targets.
    #[must_use]
    pub fn text(&self) -> Option<&'a str> {
        match self.code {
            Code::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The code's bytes, whatever the target.
    #[must_use]
    pub fn bytes(&self) -> &'a [u8] {
        match self.code {
            Code::Spirv(words) => zerocopy::IntoBytes::as_bytes(words),
            Code::Text(text) => text.as_bytes(),
            Code::Binary(bytes) => bytes,
        }
    }
}

impl<'a> EntryPoint<'a> {
    /// Position of this entry point in the package's entry-point table.
    fn global_index(&self) -> u32 {
        let base = self.entry.package.entry_point_records().as_ptr() as usize;
        let at = core::ptr::from_ref(self.record) as usize;
        ((at - base) / size_of::<slangpack_format::EntryPointRecord>()) as u32
    }

    /// This entry point's records in the entry-point targets table.
    fn target_records(&self) -> &'a [EntryPointTargetRecord] {
        self.entry.package.target_records_of(self.global_index())
    }

    fn target_code(&self, r: &EntryPointTargetRecord) -> TargetCode<'a> {
        let package = self.entry.package;
        // Loaded with the entry (`Package::load_target_code`).
        let code = match package.loaded_code(r.code as usize) {
            Some(LoadedCode::Text(text)) => Code::Text(text),
            Some(LoadedCode::Bytes(bytes)) => Code::Binary(bytes.get(package.file())),
            None => Code::Binary(&[]),
        };
        TargetCode {
            target: Target::from_raw(r.target),
            entry_name: package.string(r.entry_name),
            code,
        }
    }

    /// This entry point's code for `target`, or `None` when the package has none for it.
    /// [`Target::Spirv`] gives [`EntryPoint::spirv`] with [`EntryPoint::spirv_entry_name`].
    ///
    /// Cost: a binary search of the entry-point targets table; no allocation.
    #[must_use]
    pub fn code(&self, target: Target) -> Option<TargetCode<'a>> {
        if target == Target::Spirv {
            return Some(TargetCode {
                target,
                entry_name: self.spirv_entry_name(),
                code: Code::Spirv(self.spirv()),
            });
        }
        let records = self.target_records();
        let i = records
            .binary_search_by_key(&target.to_raw(), |r| r.target)
            .ok()?;
        records.get(i).map(|r| self.target_code(r))
    }

    /// Every target this entry point has code for: SPIR-V first, then the others in target
    /// order.
    #[must_use]
    pub fn targets(&self) -> TargetCodeIter<'a> {
        TargetCodeIter {
            entry_point: *self,
            spirv: true,
            records: self.target_records().iter(),
        }
    }
}

/// Iterator over an entry point's code per target ([`EntryPoint::targets`]).
#[derive(Debug, Clone)]
pub struct TargetCodeIter<'a> {
    entry_point: EntryPoint<'a>,
    spirv: bool,
    records: core::slice::Iter<'a, EntryPointTargetRecord>,
}

impl<'a> Iterator for TargetCodeIter<'a> {
    type Item = TargetCode<'a>;
    fn next(&mut self) -> Option<TargetCode<'a>> {
        if core::mem::take(&mut self.spirv) {
            return self.entry_point.code(Target::Spirv);
        }
        self.records.next().map(|r| self.entry_point.target_code(r))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.records.len() + usize::from(self.spirv);
        (n, Some(n))
    }
}
impl ExactSizeIterator for TargetCodeIter<'_> {}

/// One target's bind view ([`crate::BindView::target`]): where each binding sits in that
/// target's code, sorted by space (WGSL group, GLSL set, HLSL space), register class, index.
#[derive(Debug, Clone, Copy)]
pub struct TargetBindView<'a> {
    view: crate::ReflectionView<'a>,
    target: Target,
    records: &'a [TargetBinding],
}

use slangpack_format::bind::BufferLayout;
use slangpack_format::targets::{TargetBinding, TargetBuffer, TargetMember};
use slangpack_format::TargetBindingKind;

/// The member layout of a target binding's buffer ([`TargetBindView::buffer_layout`]).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum TargetBufferLayout<'a> {
    /// The target lays the buffer out as the Vulkan bind view does, and the bake checked the
    /// target's code against it member by member (WGSL, GLSL): read the members with
    /// [`crate::BindView::members`]. A WGSL uniform buffer standing in for a push-constant
    /// block (no Vulkan binding; SPEC.md 6.8) holds the block's range: its members sit at
    /// these offsets less the range's `PushConstantRange::offset` (fill the block, upload
    /// the bytes from the range's offset).
    Vulkan(&'a BufferLayout),
    /// The target lays the buffer out by rules of its own (HLSL, Metal), and the package
    /// holds its member layout (since 1.4), checked at bake time against the target's code
    /// member by member: the record, whose members parallel the Vulkan layout's
    /// (`buffer_layout`); fill it with [`TargetBindView::buffer_view`], read its members
    /// with [`TargetBindView::target_members`].
    Target(&'a TargetBuffer),
    /// The binding is a buffer, but the package holds no member layout for this target
    /// (packages older than 1.4, a Metal argument buffer — whose whole struct, resources
    /// included, is [`TargetBindView::argument_buffer`] since 1.5 —, a buffer whose members the bake
    /// could not place from the code): HLSL packs constant buffers into 16-byte registers and
    /// Metal gives a `float3` 16 bytes, so the Vulkan offsets do not hold there. The
    /// binding's `min_binding_size` is still the target's own size.
    NotProvided,
    /// Not a buffer (a texture, a sampler, an argument buffer with no uniform data of its
    /// own), or a buffer binding without a Vulkan layout.
    NotABuffer,
}

impl<'a> TargetBufferLayout<'a> {
    /// The Vulkan layout, when the target shares it (WGSL, GLSL).
    #[must_use]
    pub fn layout(self) -> Option<&'a BufferLayout> {
        match self {
            TargetBufferLayout::Vulkan(layout) => Some(layout),
            _ => None,
        }
    }

    /// The target's own layout record, when the package holds one (HLSL, Metal).
    #[must_use]
    pub fn target_buffer(self) -> Option<&'a TargetBuffer> {
        match self {
            TargetBufferLayout::Target(buffer) => Some(buffer),
            _ => None,
        }
    }
}

impl<'a> crate::BindView<'a> {
    /// The bind view of `target`; empty when the entry was not baked for it. For
    /// [`Target::Spirv`] use the Vulkan view ([`crate::BindView::bindings`]).
    ///
    /// Cost: a binary search; no allocation.
    #[must_use]
    pub fn target(&self, target: Target) -> TargetBindView<'a> {
        let all = self.view.target_bindings();
        let raw = target.to_raw();
        let start = all.partition_point(|b| b.target < raw);
        let end = all.partition_point(|b| b.target <= raw);
        TargetBindView {
            view: self.view,
            target,
            records: all.get(start..end).unwrap_or(&[]),
        }
    }

    /// Every target with a bind view in this entry, in target order.
    pub fn targets(&self) -> impl Iterator<Item = Target> + 'a {
        let all = self.view.target_bindings();
        let mut last = None;
        all.iter().filter_map(move |b| {
            let t = b.target;
            (last.replace(t) != Some(t)).then_some(Target::from_raw(t))
        })
    }
}

impl<'a> TargetBindView<'a> {
    /// The target.
    #[must_use]
    pub fn target(&self) -> Target {
        self.target
    }

    /// Every binding of the target, sorted by (space, register class, index).
    #[must_use]
    pub fn bindings(&self) -> &'a [TargetBinding] {
        self.records
    }

    /// Whether the entry has no bind view for this target.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The bindings in `space` (WGSL group, GLSL set, HLSL space; for Metal, absent gives the
    /// top-level bindings and an argument buffer's record index its members).
    #[must_use]
    pub fn space(&self, space: u32) -> &'a [TargetBinding] {
        let start = self.records.partition_point(|b| b.space < space);
        let end = self.records.partition_point(|b| b.space <= space);
        self.records.get(start..end).unwrap_or(&[])
    }

    /// The binding whose parameter path is `path` (linear in the target's bindings; no
    /// allocation). With several records for one path (a combined texture-sampler split in
    /// two), the first.
    #[must_use]
    pub fn find(&self, path: &str) -> Option<&'a TargetBinding> {
        self.records.iter().find(|b| self.path(b) == path)
    }

    /// The entry's Vulkan bind view.
    pub(crate) fn view_bind(&self) -> crate::BindView<'a> {
        self.view.bind()
    }

    /// A binding's parameter path.
    #[must_use]
    pub fn path(&self, binding: &TargetBinding) -> &'a str {
        self.view.string(binding.path)
    }

    /// A string of the entry's reflection (`""` when absent).
    #[cfg(feature = "wgpu")]
    pub(crate) fn string(&self, index: u32) -> &'a str {
        self.view.string(index)
    }

    /// A binding's variable name in the target's code, if the code declares it.
    #[must_use]
    pub fn code_name(&self, binding: &TargetBinding) -> Option<&'a str> {
        self.view.string_opt(binding.code_name)
    }

    /// Union of the stages of the program's entry points (`VkShaderStageFlags`).
    #[must_use]
    pub fn program_stage_flags(&self) -> u32 {
        self.view
            .bind()
            .summary()
            .map_or(0, |s| s.program_stage_flags)
    }

    /// The member layout of a buffer binding's buffer **on this target** (see
    /// [`TargetBufferLayout`]): the Vulkan bind view's layout where the target shares it
    /// ([`Target::shares_vulkan_member_layout`]: WGSL, GLSL, checked at bake time against the
    /// target's code), [`TargetBufferLayout::Target`] where the target has its own and the
    /// package holds it (HLSL, Metal, since 1.4), [`TargetBufferLayout::NotProvided`] where it
    /// holds none (a Metal argument buffer holding its ParameterBlock's uniform data, older
    /// packages),
    /// [`TargetBufferLayout::NotABuffer`] for textures and samplers. `binding` is one of this
    /// view's records or a copy of one.
    ///
    /// Cost: two index lookups (and a binary search for a copy); no allocation.
    #[must_use]
    pub fn buffer_layout(&self, binding: &TargetBinding) -> TargetBufferLayout<'a> {
        let is_buffer = matches!(
            binding.binding_kind(),
            TargetBindingKind::UniformBuffer
                | TargetBindingKind::StorageBuffer
                | TargetBindingKind::PushConstants
        );
        let bind = self.view.bind();
        let layout = match self.vulkan_binding(binding) {
            Some(v) => bind.buffer_layout(v.buffer_layout),
            // A push-constant block has no descriptor binding: its range names the layout.
            None => {
                let path = self.path(binding);
                bind.push_constants()
                    .iter()
                    .find(|p| bind.string(p.name) == path)
                    .and_then(|p| bind.buffer_layout(p.buffer_layout))
            }
        };
        if !self.target.shares_vulkan_member_layout() {
            if let Some((_, own)) = self.target_buffer_of(binding) {
                return TargetBufferLayout::Target(own);
            }
        }
        match layout {
            // A Metal argument buffer holds its ParameterBlock's uniform data, laid out by Metal.
            Some(_) if !self.target.shares_vulkan_member_layout() => {
                TargetBufferLayout::NotProvided
            }
            None if is_buffer && !self.target.shares_vulkan_member_layout() => {
                TargetBufferLayout::NotProvided
            }
            Some(layout) if is_buffer => TargetBufferLayout::Vulkan(layout),
            _ => TargetBufferLayout::NotABuffer,
        }
    }

    /// The target buffer record of `binding` (one of this view's records, or a copy) and its index among
    /// the target buffers, if the package holds one.
    fn target_buffer_of(&self, binding: &TargetBinding) -> Option<(u32, &'a TargetBuffer)> {
        let index = self.record_index(binding)?;
        let buffers = self.view.target_buffers();
        let i = buffers
            .binary_search_by_key(&index, |b| b.target_binding)
            .ok()?;
        Some((i as u32, buffers.get(i)?))
    }

    /// The index among the entry's target bindings of `binding`: found by its address when it
    /// is one of this view's records, else (a copy) by a binary search of the records, which
    /// are sorted by target, space, register class and index, for an equal one; `None` when
    /// the view has no such record.
    pub(crate) fn record_index(&self, binding: &TargetBinding) -> Option<u32> {
        let all = self.view.target_bindings();
        let size = size_of::<TargetBinding>();
        if let Some(at) = (core::ptr::from_ref(binding) as usize).checked_sub(all.as_ptr() as usize)
        {
            if at % size == 0 && at / size < all.len() {
                return u32::try_from(at / size).ok();
            }
        }
        let key = |b: &TargetBinding| (b.target, b.space, b.register_class, b.index);
        let first = all.partition_point(|b| key(b) < key(binding));
        let found = all
            .get(first..)?
            .iter()
            .take_while(|b| key(b) == key(binding))
            .position(|b| b == binding)?;
        u32::try_from(first + found).ok()
    }

    /// The entry's reflection view.
    pub(crate) fn reflection(&self) -> crate::ReflectionView<'a> {
        self.view
    }

    /// The members of a target buffer ([`TargetBufferLayout::Target`]), parallel to the
    /// Vulkan layout's ([`crate::BindView::members`] of its `buffer_layout`): member `k` of
    /// one is member `k` of the other. Empty when out of range.
    #[must_use]
    pub fn target_members(&self, buffer: &TargetBuffer) -> &'a [TargetMember] {
        let first = buffer.first_member as usize;
        self.view
            .target_members()
            .get(first..first.saturating_add(buffer.member_count as usize))
            .unwrap_or(&[])
    }

    /// The member layout of a buffer binding's buffer on this target, ready to fill by member
    /// path ([`crate::BufferLayoutView::writer`]): WGSL and GLSL buffers take the Vulkan bind
    /// view's layout, HLSL and Metal buffers their own (since 1.4), each checked at bake time
    /// against the target's code.
    ///
    /// # Errors
    /// A [`crate::FillError`] naming the binding's path:
    /// [`crate::FillErrorKind::LayoutNotProvided`] for an HLSL or Metal buffer the package
    /// holds no member layout for (see [`TargetBufferLayout::NotProvided`]),
    /// [`crate::FillErrorKind::NotABuffer`] for a texture or sampler.
    pub fn buffer_view(
        &self,
        binding: &TargetBinding,
    ) -> core::result::Result<crate::BufferLayoutView<'a>, crate::FillError> {
        use crate::{FillError, FillErrorKind};
        let path = self.path(binding);
        match self.buffer_layout(binding) {
            TargetBufferLayout::Vulkan(layout) => self
                .view
                .bind()
                .view_of(layout)
                .ok_or_else(|| FillError::new(path, FillErrorKind::NotABuffer)),
            TargetBufferLayout::Target(_) => self
                .target_buffer_of(binding)
                .and_then(|(i, _)| crate::BufferLayoutView::of_target(self.view.bind(), i))
                .ok_or_else(|| FillError::new(path, FillErrorKind::NotABuffer)),
            TargetBufferLayout::NotProvided => Err(FillError::new(
                path,
                FillErrorKind::LayoutNotProvided {
                    target: self.target,
                },
            )),
            TargetBufferLayout::NotABuffer => Err(FillError::new(path, FillErrorKind::NotABuffer)),
        }
    }

    /// [`Self::buffer_view`] of the binding whose parameter path is `path` (`gParams`).
    ///
    /// # Errors
    /// [`crate::FillErrorKind::NoSuchBinding`] when the target has no binding at `path`, else
    /// those of [`Self::buffer_view`].
    pub fn find_buffer_view(
        &self,
        path: &str,
    ) -> core::result::Result<crate::BufferLayoutView<'a>, crate::FillError> {
        match self.find(path) {
            Some(binding) => self.buffer_view(binding),
            None => Err(crate::FillError::new(
                path,
                crate::FillErrorKind::NoSuchBinding,
            )),
        }
    }

    /// The Vulkan binding of the same parameter, if any: its set, binding and stages. Its
    /// `buffer_layout` is the Vulkan member layout, which is not HLSL's or Metal's: take a
    /// target's member layout from [`TargetBindView::buffer_layout`].
    #[must_use]
    pub fn vulkan_binding(
        &self,
        binding: &TargetBinding,
    ) -> Option<&'a slangpack_format::bind::DescriptorBinding> {
        self.view.bind().bindings().get(binding.binding as usize)
    }
}
