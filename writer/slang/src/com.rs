//! The one place that calls Slang's COM interfaces through `shader-slang-sys` directly.
//!
//! `shader-slang` 0.1.0 covers global sessions, session descriptions and the reflection
//! types, and those are used as they are. It lacks what a build tool needs around them:
//! loading a module from an in-memory string, creating type conformances, keeping the
//! diagnostics of a call that succeeded (warnings), treating a null diagnostics blob as
//! "no text" rather than unwrapping it, reading Slang's version without a global session, a
//! global session with the GLSL module enabled, session options its builder has no method
//! for, and entry points given a stage by the caller.
//! This module adds exactly those calls, as thin owned
//! wrappers around COM pointers, and nothing else.
//!
//! Soundness rests on three facts, each checked where it is used:
//! * every wrapper owns one reference to a live, non-null COM object (released on drop);
//! * the vtable layouts are `shader-slang-sys`'s, written for Slang 2024.14.5; the methods
//!   called here sit at the same vtable slots in the pinned Slang 2026.12 headers (Slang only
//!   appends to its interfaces);
//! * `shader_slang::Session` is `#[repr(transparent)]` over a non-null COM pointer (pinned
//!   `=0.1.0`), which is what lets ownership move from it into [`Session`].
#![allow(
    unsafe_code,
    reason = "FFI to the Slang compiler; each block has a SAFETY note"
)]

use crate::reflection::{Decl, Function, Program, Type};
use shader_slang as slang;
use shader_slang_sys as sys;
use std::ffi::{c_void, CStr, CString};
use std::ptr::{null_mut, NonNull};

/// One owned reference to a COM object.
#[derive(Debug)]
struct ComPtr(NonNull<c_void>);

impl ComPtr {
    /// Takes ownership of one reference, or `None` for a null pointer.
    ///
    /// # Safety
    /// `ptr` must be null or point to a live COM object whose reference the caller owns.
    unsafe fn from_raw<T>(ptr: *mut T) -> Option<Self> {
        NonNull::new(ptr.cast::<c_void>()).map(ComPtr)
    }

    fn as_raw(&self) -> *mut c_void {
        self.0.as_ptr()
    }

    /// The object's vtable viewed as `V`.
    ///
    /// # Safety
    /// The object must implement an interface whose vtable starts with the layout `V`.
    unsafe fn vtable<V>(&self) -> &V {
        // SAFETY: a COM object's first word points at its vtable; the caller vouches for `V`.
        unsafe { &**(self.as_raw() as *const *const V) }
    }
}

impl Clone for ComPtr {
    fn clone(&self) -> Self {
        // SAFETY: every COM interface starts with IUnknown's vtable; addRef gives the clone
        // its own reference.
        unsafe {
            (self
                .vtable::<sys::ISlangUnknown__bindgen_vtable>()
                .ISlangUnknown_addRef)(self.as_raw().cast());
        }
        ComPtr(self.0)
    }
}

impl Drop for ComPtr {
    fn drop(&mut self) {
        // SAFETY: we own one reference, released exactly once here.
        unsafe {
            (self
                .vtable::<sys::ISlangUnknown__bindgen_vtable>()
                .ISlangUnknown_release)(self.as_raw().cast());
        }
    }
}

/// Reads and releases a diagnostics blob; a null blob is no text.
///
/// # Safety
/// `blob` must be null or an `ISlangBlob*` whose reference the caller owns.
unsafe fn take_text(blob: *mut sys::ISlangBlob) -> String {
    // SAFETY: forwarded from the caller.
    match unsafe { ComPtr::from_raw(blob) } {
        Some(blob) => String::from_utf8_lossy(blob_bytes(&blob)).into_owned(),
        None => String::new(),
    }
}

fn blob_bytes(blob: &ComPtr) -> &[u8] {
    // SAFETY: `blob` is an ISlangBlob (only blobs are passed here); the buffer lives as long
    // as the blob, and the slice borrows the blob.
    unsafe {
        let vtable = blob.vtable::<sys::IBlobVtable>();
        let ptr = (vtable.getBufferPointer)(blob.as_raw()).cast::<u8>();
        let len = (vtable.getBufferSize)(blob.as_raw());
        if ptr.is_null() || len == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(ptr, len)
        }
    }
}

/// A failed Slang call: the result code and Slang's diagnostic text (possibly empty).
#[derive(Debug, Clone)]
pub struct SlangFailure {
    /// The SlangResult, or 0 when Slang returned a null object without a code.
    pub code: i32,
    /// Slang's diagnostics, verbatim.
    pub diagnostics: String,
}

/// What a successful call said on the side (warnings), verbatim; often empty.
pub type Warnings = String;

fn check(code: sys::SlangResult, diagnostics: String) -> Result<Warnings, SlangFailure> {
    if code < 0 {
        Err(SlangFailure { code, diagnostics })
    } else {
        Ok(diagnostics)
    }
}

fn cstring(s: &str) -> Result<CString, SlangFailure> {
    CString::new(s).map_err(|_| SlangFailure {
        code: 0,
        diagnostics: format!("string passed to Slang contains a NUL byte: {s:?}"),
    })
}

/// A compilation session (`slang::ISession`): targets, search paths, macros, options.
#[derive(Debug)]
pub struct Session(ComPtr);

/// A session option that `shader-slang`'s option builder has no method for: Slang's option
/// name and its two integer values (`slang::CompilerOptionValue`'s `intValue0`/`intValue1`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntOption {
    /// The option.
    pub(crate) name: slang::CompilerOptionName,
    /// `intValue0`.
    pub(crate) int0: i32,
    /// `intValue1`.
    pub(crate) int1: i32,
}

/// The option entries at `ptr` (`count` of them) followed by `extra`.
///
/// # Safety
/// `ptr` must be null or point to `count` live entries.
unsafe fn entries_with(
    ptr: *const sys::slang_CompilerOptionEntry,
    count: u32,
    extra: &[IntOption],
) -> Vec<sys::slang_CompilerOptionEntry> {
    let mut entries = if ptr.is_null() || count == 0 {
        Vec::new()
    } else {
        // SAFETY: forwarded from the caller.
        unsafe { std::slice::from_raw_parts(ptr, count as usize) }.to_vec()
    };
    entries.extend(extra.iter().map(|o| sys::slang_CompilerOptionEntry {
        name: o.name,
        value: sys::slang_CompilerOptionValue {
            kind: sys::slang_CompilerOptionValueKind::Int,
            intValue0: o.int0,
            intValue1: o.int1,
            stringValue0: std::ptr::null(),
            stringValue1: std::ptr::null(),
        },
    }));
    entries
}

/// A global session with Slang's GLSL module enabled, as `slangc` creates it, so that modules
/// in GLSL syntax (`#version 460`) compile. `None` when Slang cannot create one.
pub(crate) fn global_session() -> Option<slang::GlobalSession> {
    let desc = sys::SlangGlobalSessionDesc {
        structureSize: std::mem::size_of::<sys::SlangGlobalSessionDesc>() as u32,
        apiVersion: sys::SLANG_API_VERSION,
        // SLANG_LANGUAGE_VERSION_2025: the header's default for this field.
        minLanguageVersion: 2025,
        enableGLSL: true,
        reserved: [0; 16],
    };
    let mut out = null_mut();
    // SAFETY: `desc` is a complete, correctly sized description that outlives the call; on
    // success Slang hands us one reference to a new global session.
    let code = unsafe { sys::slang_createGlobalSession2(&desc, &mut out) };
    let ptr = NonNull::new(out.cast::<c_void>())?;
    if code < 0 {
        return None;
    }
    // SAFETY: `shader_slang::GlobalSession` is `#[repr(transparent)]` over a
    // `#[repr(transparent)]` non-null COM pointer (crate pinned at =0.1.0): the transmute
    // moves our one reference into it, and the compiler checks the sizes agree.
    Some(unsafe { std::mem::transmute::<NonNull<c_void>, slang::GlobalSession>(ptr) })
}

impl Session {
    /// Creates a session on `global` from `desc`, with `first_target` added to the options of
    /// its first target.
    ///
    /// # Errors
    /// A [`SlangFailure`] with code 0 when Slang cannot create the session.
    pub(crate) fn new(
        global: &slang::GlobalSession,
        desc: &slang::SessionDesc<'_>,
        first_target: &[IntOption],
    ) -> Result<Session, SlangFailure> {
        let mut raw: sys::slang_SessionDesc = **desc;
        let mut targets: Vec<sys::slang_TargetDesc> = if raw.targets.is_null()
            || raw.targetCount == 0
        {
            Vec::new()
        } else {
            // SAFETY: the description points at the live target descriptions it counts,
            // for as long as `desc` is borrowed.
            unsafe { std::slice::from_raw_parts(raw.targets, raw.targetCount as usize) }.to_vec()
        };
        let mut entries = match targets.first() {
            // SAFETY: the target points at its option builder's live entries, as many as it
            // counts, for as long as `desc` is borrowed.
            Some(t) => unsafe {
                entries_with(
                    t.compilerOptionEntries,
                    t.compilerOptionEntryCount,
                    first_target,
                )
            },
            None => Vec::new(),
        };
        if let Some(first) = targets.first_mut() {
            first.compilerOptionEntries = entries.as_mut_ptr();
            first.compilerOptionEntryCount = entries.len() as _;
        }
        raw.targets = targets.as_ptr();
        // SAFETY: `shader_slang::SessionDesc` is `#[repr(transparent)]` over
        // `slang_SessionDesc` (pinned =0.1.0), so the reference casts; everything `raw` points
        // at (`targets`, `entries`, and what `desc` borrows) outlives the
        // call.
        let desc: &slang::SessionDesc<'_> =
            unsafe { &*(&raw as *const sys::slang_SessionDesc).cast::<slang::SessionDesc<'_>>() };
        let session = global.create_session(desc).ok_or_else(|| SlangFailure {
            code: 0,
            diagnostics: "Slang could not create a compilation session".into(),
        })?;
        // SAFETY: `shader_slang::Session` is `#[repr(transparent)]` over one owned non-null
        // COM pointer (crate pinned at =0.1.0); the transmute moves that reference here, and
        // the compiler checks the sizes agree.
        let ptr: NonNull<c_void> = unsafe { std::mem::transmute(session) };
        Ok(Session(ComPtr(ptr)))
    }

    fn vtable(&self) -> &sys::ISessionVtable {
        // SAFETY: the object is an ISession.
        unsafe { self.0.vtable() }
    }

    /// Loads (or returns the already loaded) module `name` from `source`, reported as `path`.
    ///
    /// # Errors
    /// Slang's diagnostics, verbatim, when the module does not compile; code 0 and a message
    /// naming the string when `name`, `path` or `source` contains a NUL byte.
    pub fn load_module_from_source(
        &self,
        name: &str,
        path: &str,
        source: &str,
    ) -> Result<(Module, Warnings), SlangFailure> {
        let (name, path, source) = (cstring(name)?, cstring(path)?, cstring(source)?);
        let mut diagnostics = null_mut();
        // SAFETY: valid C strings outlive the call; Slang returns a borrowed module pointer
        // (owned by the session), which we addRef before wrapping.
        let module = unsafe {
            (self.vtable().loadModuleFromSourceString)(
                self.0.as_raw(),
                name.as_ptr(),
                path.as_ptr(),
                source.as_ptr(),
                &mut diagnostics,
            )
        };
        // SAFETY: the diagnostics blob, if any, is ours.
        let text = unsafe { take_text(diagnostics) };
        Self::borrowed_module(module, text)
    }

    /// Loads module `name` through the session's search paths (`import name;`).
    ///
    /// # Errors
    /// As [`Session::load_module_from_source`]; also when no search path holds the module.
    pub fn load_module(&self, name: &str) -> Result<(Module, Warnings), SlangFailure> {
        let name = cstring(name)?;
        let mut diagnostics = null_mut();
        // SAFETY: as in `load_module_from_source`.
        let module =
            unsafe { (self.vtable().loadModule)(self.0.as_raw(), name.as_ptr(), &mut diagnostics) };
        // SAFETY: the diagnostics blob, if any, is ours.
        let text = unsafe { take_text(diagnostics) };
        Self::borrowed_module(module, text)
    }

    fn borrowed_module(
        module: *mut sys::slang_IModule,
        text: String,
    ) -> Result<(Module, Warnings), SlangFailure> {
        // SAFETY: a non-null module is live and owned by the session; addRef makes our own
        // reference, so the wrapper may release it independently.
        match unsafe { ComPtr::from_raw(module) } {
            Some(ptr) => {
                let owned = ptr.clone();
                std::mem::forget(ptr);
                Ok((Module(owned), text))
            }
            None => Err(SlangFailure {
                code: 0,
                diagnostics: text,
            }),
        }
    }

    /// Composes components in the given order (the order is the parameter layout).
    ///
    /// # Errors
    /// Slang's result code and diagnostics when it cannot compose them.
    pub fn composite(&self, parts: &[&Component]) -> Result<(Component, Warnings), SlangFailure> {
        let raw: Vec<*const sys::slang_IComponentType> =
            parts.iter().map(|c| c.0.as_raw() as *const _).collect();
        let mut out = null_mut();
        let mut diagnostics = null_mut();
        // SAFETY: `raw` holds live component pointers for the duration of the call.
        let code = unsafe {
            (self.vtable().createCompositeComponentType)(
                self.0.as_raw(),
                raw.as_ptr(),
                raw.len() as sys::SlangInt,
                &mut out,
                &mut diagnostics,
            )
        };
        // SAFETY: the diagnostics blob, if any, is ours.
        let warnings = check(code, unsafe { take_text(diagnostics) })?;
        Ok((Component::owned(out, &warnings)?, warnings))
    }

    /// A component stating that `ty` conforms to `interface` (for interface-typed parameters),
    /// with `id` as the conformance's id: the value dynamic dispatch code compares an
    /// existential's witness-table id against to call `ty`'s methods (Slang's
    /// `conformanceIdOverride`; `-1` lets Slang choose one).
    ///
    /// # Errors
    /// Slang's result code and diagnostics, e.g. when `ty` does not conform to `interface`.
    pub fn type_conformance(
        &self,
        ty: Type<'_>,
        interface: Type<'_>,
        id: i64,
    ) -> Result<(Component, Warnings), SlangFailure> {
        let mut out = null_mut();
        let mut diagnostics = null_mut();
        // SAFETY: both handles hold live type pointers Slang returned from this session's
        // modules (`SlangReflectionType` is `slang_TypeReflection`).
        let code = unsafe {
            (self.vtable().createTypeConformanceComponentType)(
                self.0.as_raw(),
                ty.raw().cast(),
                interface.raw().cast(),
                &mut out,
                id as sys::SlangInt,
                &mut diagnostics,
            )
        };
        // SAFETY: the diagnostics blob, if any, is ours.
        let warnings = check(code, unsafe { take_text(diagnostics) })?;
        Ok((Component::owned(out.cast(), &warnings)?, warnings))
    }
}

/// A loaded module (`slang::IModule`).
#[derive(Debug, Clone)]
pub struct Module(ComPtr);

impl Module {
    fn vtable(&self) -> &sys::IModuleVtable {
        // SAFETY: the object is an IModule.
        unsafe { self.0.vtable() }
    }

    /// The module as a component, for composing.
    pub fn component(&self) -> Component {
        Component(self.0.clone())
    }

    /// Entry points declared with `[shader("...")]`, in declaration order.
    pub fn defined_entry_points(&self) -> Vec<Component> {
        // SAFETY: plain IModule calls; each returned entry point is a new reference.
        unsafe {
            let count = (self.vtable().getDefinedEntryPointCount)(self.0.as_raw());
            (0..count)
                .filter_map(|i| {
                    let mut ep = null_mut();
                    let code = (self.vtable().getDefinedEntryPoint)(self.0.as_raw(), i, &mut ep);
                    if code < 0 {
                        return None;
                    }
                    ComPtr::from_raw(ep).map(Component)
                })
                .collect()
        }
    }

    /// The function `name` as an entry point for `stage` (Slang's `SlangStage` value, which is
    /// the format's), for a function that has no `[shader(...)]` attribute (`slangc -entry
    /// NAME -stage STAGE`); Slang checks it.
    ///
    /// # Errors
    /// Slang's result code and diagnostics when the module has no such function or it is not
    /// a valid entry point for `stage`; code 0 when `name` contains a NUL byte or `stage` is
    /// no stage.
    pub fn find_and_check_entry_point(
        &self,
        name: &str,
        stage: u32,
    ) -> Result<(Component, Warnings), SlangFailure> {
        let stage = crate::session::stage_from_raw(stage).ok_or_else(|| SlangFailure {
            code: 0,
            diagnostics: format!("{stage} is no Slang stage"),
        })?;
        let name = cstring(name)?;
        let mut out = null_mut();
        let mut diagnostics = null_mut();
        // SAFETY: a valid C string outlives the call; on success the entry point is a new
        // reference that we own.
        let code = unsafe {
            (self.vtable().findAndCheckEntryPoint)(
                self.0.as_raw(),
                name.as_ptr(),
                stage,
                &mut out,
                &mut diagnostics,
            )
        };
        // SAFETY: the diagnostics blob, if any, is ours.
        let warnings = check(code, unsafe { take_text(diagnostics) })?;
        Ok((Component::owned(out.cast(), &warnings)?, warnings))
    }

    /// Every file this module's compilation read (itself and what it imported).
    pub fn dependency_files(&self) -> Vec<String> {
        // SAFETY: plain IModule calls; the strings are owned by the module and copied here.
        unsafe {
            let count = (self.vtable().getDependencyFileCount)(self.0.as_raw());
            (0..count)
                .filter_map(|i| {
                    let p = (self.vtable().getDependencyFilePath)(self.0.as_raw(), i);
                    (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
                })
                .collect()
        }
    }

    /// The module's declaration tree.
    pub fn reflection(&self) -> Option<Decl<'_>> {
        // SAFETY: a plain IModule call; the decl tree lives as long as the module, which the
        // handle borrows.
        let decl = unsafe { (self.vtable().getModuleReflection)(self.0.as_raw()) };
        Decl::wrap(decl.cast())
    }
}

/// Any component type: a module, an entry point, a composite or a linked program.
#[derive(Debug, Clone)]
pub struct Component(ComPtr);

impl Component {
    fn owned(ptr: *mut sys::slang_IComponentType, warnings: &str) -> Result<Self, SlangFailure> {
        // SAFETY: Slang hands out a new reference on success.
        unsafe { ComPtr::from_raw(ptr) }
            .map(Component)
            .ok_or_else(|| SlangFailure {
                code: 0,
                diagnostics: if warnings.is_empty() {
                    "Slang returned success but no component".into()
                } else {
                    warnings.to_string()
                },
            })
    }

    fn vtable(&self) -> &sys::IComponentTypeVtable {
        // SAFETY: every component is an IComponentType.
        unsafe { self.0.vtable() }
    }

    /// For an entry-point component: its function's reflection.
    pub fn entry_point_function(&self) -> Option<Function<'_>> {
        // SAFETY: only entry-point components reach here (`defined_entry_points`); the
        // function reflection lives as long as the entry point, which the handle borrows.
        let f = unsafe {
            let vtable = self.0.vtable::<sys::IEntryPointVtable>();
            (vtable.getFunctionReflection)(self.0.as_raw())
        };
        Function::wrap(f.cast())
    }

    /// Links the component and everything it depends on into a program.
    ///
    /// # Errors
    /// Slang's result code and diagnostics when linking fails (e.g. an unresolved `extern`).
    pub fn link(&self) -> Result<(Component, Warnings), SlangFailure> {
        let mut out = null_mut();
        let mut diagnostics = null_mut();
        // SAFETY: plain IComponentType call.
        let code = unsafe { (self.vtable().link)(self.0.as_raw(), &mut out, &mut diagnostics) };
        // SAFETY: the diagnostics blob, if any, is ours.
        let warnings = check(code, unsafe { take_text(diagnostics) })?;
        Ok((Component::owned(out, &warnings)?, warnings))
    }

    /// The program layout (reflection) for target `target`.
    ///
    /// # Errors
    /// Code 0 with Slang's diagnostics when Slang gives no layout (e.g. `target` is not one
    /// of the session's targets).
    pub fn layout(&self, target: i64) -> Result<Program<'_>, SlangFailure> {
        let mut diagnostics = null_mut();
        // SAFETY: a plain IComponentType call; the layout lives as long as this component,
        // which the handle borrows, and the diagnostics blob, if any, is ours.
        let (layout, text) = unsafe {
            let layout = (self.vtable().getLayout)(self.0.as_raw(), target, &mut diagnostics);
            (layout, take_text(diagnostics))
        };
        Program::wrap(layout.cast()).ok_or(SlangFailure {
            code: 0,
            diagnostics: text,
        })
    }

    /// The compiled code of entry point `index` for target `target`, with warnings.
    ///
    /// # Errors
    /// Slang's result code and diagnostics when code generation fails, or code 0 when Slang
    /// reports success without a blob.
    pub fn entry_point_code(
        &self,
        index: i64,
        target: i64,
    ) -> Result<(Vec<u8>, Warnings), SlangFailure> {
        let mut code_blob = null_mut();
        let mut diagnostics = null_mut();
        // SAFETY: plain IComponentType call; the blob is copied out and released.
        unsafe {
            let code = (self.vtable().getEntryPointCode)(
                self.0.as_raw(),
                index,
                target,
                &mut code_blob,
                &mut diagnostics,
            );
            let warnings = check(code, take_text(diagnostics))?;
            let blob = ComPtr::from_raw(code_blob).ok_or_else(|| SlangFailure {
                code: 0,
                diagnostics: "Slang returned success but no code".into(),
            })?;
            Ok((blob_bytes(&blob).to_vec(), warnings))
        }
    }

    /// Whether entry point `index` uses the resource at (`category`, `space`, `binding`):
    /// `None` when Slang cannot say.
    pub fn entry_point_uses(
        &self,
        index: i64,
        target: i64,
        category: u32,
        space: u64,
        binding: u64,
    ) -> Option<bool> {
        let category = parameter_category(category)?;
        let mut metadata = null_mut();
        let mut diagnostics = null_mut();
        // SAFETY: plain IComponentType / IMetadata calls on objects we own a reference to.
        unsafe {
            let code = (self.vtable().getEntryPointMetadata)(
                self.0.as_raw(),
                index,
                target,
                &mut metadata,
                &mut diagnostics,
            );
            drop(take_text(diagnostics));
            let metadata = ComPtr::from_raw(metadata)?;
            if code < 0 {
                return None;
            }
            let mut used = false;
            let vtable = metadata.vtable::<sys::IMetadataVtable>();
            let code = (vtable.isParameterLocationUsed)(
                metadata.as_raw(),
                category,
                space,
                binding,
                &mut used,
            );
            (code >= 0).then_some(used)
        }
    }

    /// Slang's JSON dump of this component's layout for target 0 (`spReflection_ToJson`).
    ///
    /// # Errors
    /// As [`Component::layout`], or Slang's result code when it cannot write the JSON.
    pub fn reflection_json(&self) -> Result<String, SlangFailure> {
        let layout = self.layout(0)?;
        let mut blob = null_mut();
        // SAFETY: `layout` is a live program layout; the blob is ours.
        unsafe {
            let code = sys::spReflection_ToJson(layout.raw().cast(), null_mut(), &mut blob);
            let text = take_text(blob);
            check(code, String::new())?;
            Ok(text)
        }
    }
}

/// Slang's parameter category for its `SlangParameterCategory` value (the format's), so
/// that no value outside the enum ever reaches a call declared with it; `None` for those.
fn parameter_category(raw: u32) -> Option<sys::SlangParameterCategory> {
    use sys::SlangParameterCategory as C;
    const ALL: [C; 25] = [
        C::None,
        C::Mixed,
        C::ConstantBuffer,
        C::ShaderResource,
        C::UnorderedAccess,
        C::VaryingInput,
        C::VaryingOutput,
        C::SamplerState,
        C::Uniform,
        C::DescriptorTableSlot,
        C::SpecializationConstant,
        C::PushConstantBuffer,
        C::RegisterSpace,
        C::Generic,
        C::RayPayload,
        C::HitAttributes,
        C::CallablePayload,
        C::ShaderRecord,
        C::ExistentialTypeParam,
        C::ExistentialObjectParam,
        C::SubElementRegisterSpace,
        C::Subpass,
        C::MetalArgumentBufferElement,
        C::MetalAttribute,
        C::MetalPayload,
    ];
    ALL.into_iter().find(|&c| c as u32 == raw)
}

extern "C" {
    /// slang.h's `spGetBuildTagString` (not among `shader-slang-sys`'s bindings): the library's
    /// build tag, a static NUL-terminated string.
    fn spGetBuildTagString() -> *const std::ffi::c_char;
}

/// Slang's build tag (its version), the string a global session's `getBuildTagString` gives,
/// read without starting a global session (which loads Slang's core module: a large part of
/// a small bake).
pub fn build_tag() -> String {
    // SAFETY: a free function without arguments, returning null or a pointer to a static
    // string the library owns for its lifetime.
    let tag = unsafe { spGetBuildTagString() };
    if tag.is_null() {
        return String::new();
    }
    // SAFETY: non-null, NUL-terminated and static (see above).
    unsafe { CStr::from_ptr(tag) }
        .to_string_lossy()
        .into_owned()
}

/// Slang's own string hash (`spComputeStringHash`), as `getStringHash` computes in shaders.
pub fn string_hash(s: &str) -> u32 {
    // SAFETY: a pure function over the given bytes.
    unsafe { sys::spComputeStringHash(s.as_ptr().cast(), s.len()) }
}

impl Component {
    /// Number of generic parameters (global `type_param`s and entry-point generics) still
    /// open in this component.
    pub fn specialization_param_count(&self) -> i64 {
        // SAFETY: plain IComponentType call.
        unsafe { (self.vtable().getSpecializationParamCount)(self.0.as_raw()) }
    }

    /// Specializes the component's open generic parameters, in order, to `types`.
    ///
    /// # Errors
    /// Slang's result code and diagnostics, e.g. when a type does not satisfy its parameter's
    /// constraint or the count is wrong.
    pub fn specialize(&self, types: &[Type<'_>]) -> Result<(Component, Warnings), SlangFailure> {
        let args: Vec<sys::slang_SpecializationArg> = types
            .iter()
            .map(|ty| sys::slang_SpecializationArg {
                kind: sys::slang_SpecializationArg_Kind::Type,
                __bindgen_anon_1: sys::slang_SpecializationArg__bindgen_ty_1 {
                    type_: ty.raw().cast(),
                },
            })
            .collect();
        let mut out = null_mut();
        let mut diagnostics = null_mut();
        // SAFETY: `args` outlives the call and holds live type pointers of this component's
        // session (each handle holds one Slang returned).
        let code = unsafe {
            (self.vtable().specialize)(
                self.0.as_raw(),
                args.as_ptr(),
                args.len() as sys::SlangInt,
                &mut out,
                &mut diagnostics,
            )
        };
        // SAFETY: the diagnostics blob, if any, is ours.
        let warnings = check(code, unsafe { take_text(diagnostics) })?;
        Ok((Component::owned(out, &warnings)?, warnings))
    }
}

#[cfg(test)]
mod tests {
    use super::parameter_category;

    #[test]
    fn parameter_categories_map_by_value_and_stop_at_the_enums_end() {
        for raw in 0..25 {
            assert_eq!(parameter_category(raw).map(|c| c as u32), Some(raw));
        }
        assert!(parameter_category(25).is_none());
        assert!(parameter_category(u32::MAX).is_none());
    }
}
