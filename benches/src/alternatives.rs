//! The "other ways" the benchmarks compare with: Slang's JSON reflection, a live Slang
//! session, and SPIR-V reflection with `spirq` and `rspirv-reflect`, each doing the lookup the
//! bind view does; and the cross-check that they all find what the bind view finds.

use super::*;

fn json_field<'a>(fields: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
    fields
        .as_array()?
        .iter()
        .find(|f| f.get("name").and_then(|n| n.as_str()) == Some(name))
}

/// The `binding` objects of a JSON var layout (one, or an array under `bindings`).
fn json_bindings(var: &serde_json::Value) -> impl Iterator<Item = &serde_json::Value> {
    var.get("binding").into_iter().chain(
        var.get("bindings")
            .and_then(|b| b.as_array())
            .into_iter()
            .flatten(),
    )
}

fn json_offset(var: &serde_json::Value, kind: &str) -> u64 {
    json_bindings(var)
        .filter(|b| b.get("kind").and_then(|k| k.as_str()) == Some(kind))
        .filter_map(|b| b.get("index").or_else(|| b.get("offset"))?.as_u64())
        .sum()
}

fn json_space(var: &serde_json::Value) -> u64 {
    json_bindings(var)
        .filter(|b| b.get("kind").and_then(|k| k.as_str()) == Some("descriptorTableSlot"))
        .filter_map(|b| b.get("space")?.as_u64())
        .sum()
}

/// Follows a dotted path through Slang's JSON: the parameter, then struct fields, stepping
/// into the element of `parameterBlock` / `constantBuffer` types. Returns the absolute
/// `(set, binding)` of a descriptor and the byte offset within its innermost buffer of a
/// uniform; `None` when a segment is missing.
pub fn json_lookup(root: &serde_json::Value, path: &str) -> Option<(u64, u64, u64)> {
    let mut segments = path.split('.');
    let mut var = json_field(root.get("parameters")?, segments.next()?)?;
    // `sub` counts the sub-element spaces since the innermost block's element: a nested block
    // opens its set at the enclosing set plus `sub`.
    let (mut set, mut binding, mut offset, mut sub) = (0, 0, 0, 0);
    loop {
        binding += json_offset(var, "descriptorTableSlot");
        set += json_space(var) + json_offset(var, "registerSpace");
        offset += json_offset(var, "uniform");
        sub += json_offset(var, "subElementRegisterSpace");
        let mut ty = var.get("type")?;
        let kind = ty.get("kind").and_then(|k| k.as_str());
        if matches!(kind, Some("parameterBlock") | Some("constantBuffer")) {
            let element = ty.get("elementVarLayout")?;
            if kind == Some("parameterBlock") {
                set += sub;
                sub = 0;
                binding = 0;
            }
            offset = 0;
            binding += json_offset(element, "descriptorTableSlot");
            offset += json_offset(element, "uniform");
            sub += json_offset(element, "subElementRegisterSpace");
            ty = element.get("type")?;
        }
        let Some(next) = segments.next() else {
            return Some((set, binding, offset));
        };
        var = json_field(ty.get("fields")?, next)?;
    }
}

// ---------------------------------------------------------------------------------------
// Live Slang: a session per program, as an engine compiling at load time would.
// ---------------------------------------------------------------------------------------

/// A live Slang program: session, module, entry points, linked; what an engine holds when it
/// compiles at load time instead of reading a package.
pub struct LiveProgram {
    /// The linked program.
    pub linked: shader_slang::ComponentType,
    _session: shader_slang::Session,
}

impl LiveProgram {
    /// Creates a session searching `dir`, loads module `name`, composes it with all its
    /// entry points and links. Options are the writer's defaults (SPIR-V 1.5).
    ///
    /// # Panics
    /// When Slang fails on the example.
    pub fn load(global: &shader_slang::GlobalSession, dir: &Path, name: &str) -> LiveProgram {
        use shader_slang::Downcast;
        let search = CString::new(dir.to_string_lossy().into_owned()).expect("a path");
        let search_ptrs = [search.as_ptr()];
        let profile = global.find_profile(&CompileOptions::default().profile);
        let session_options = shader_slang::CompilerOptions::default()
            .optimization(shader_slang::OptimizationLevel::Default);
        let target_options = shader_slang::CompilerOptions::default();
        let targets = [shader_slang::TargetDesc::default()
            .format(shader_slang::CompileTarget::Spirv)
            .profile(profile)
            .options(&target_options)];
        let desc = shader_slang::SessionDesc::default()
            .targets(&targets)
            .search_paths(&search_ptrs)
            .options(&session_options);
        let session = global.create_session(&desc).expect("a Slang session");
        let module = session
            .load_module(name)
            .expect("loading the example module");
        let mut parts = vec![module.downcast().clone()];
        parts.extend(module.entry_points().map(|ep| ep.downcast().clone()));
        let composite = session
            .create_composite_component_type(&parts)
            .expect("composing the program");
        let linked = composite.link().expect("linking the program");
        LiveProgram {
            linked,
            _session: session,
        }
    }

    /// The linked program's reflection.
    ///
    /// # Panics
    /// When Slang gives no layout.
    pub fn layout(&self) -> &shader_slang::reflection::Shader {
        self.linked.layout(0).expect("a program layout")
    }
}

/// Follows a dotted path through live Slang reflection like [`json_lookup`]: absolute
/// `(set, binding)` and the uniform offset inside the innermost buffer.
pub fn slang_lookup(
    layout: &shader_slang::reflection::Shader,
    path: &str,
) -> Option<(u64, u64, u64)> {
    use shader_slang::{ParameterCategory as C, TypeKind};
    let mut segments = path.split('.');
    let first = segments.next()?;
    let mut var = layout.parameters().find(|p| p.name() == Some(first))?;
    let (mut set, mut binding, mut offset, mut sub) = (0u64, 0u64, 0u64, 0u64);
    loop {
        binding += var.offset(C::DescriptorTableSlot) as u64;
        set += var.binding_space_with_category(C::DescriptorTableSlot) as u64
            + var.offset(C::RegisterSpace) as u64;
        offset += var.offset(C::Uniform) as u64;
        sub += var.offset(C::SubElementRegisterSpace) as u64;
        let mut ty = var.type_layout();
        let kind = ty.kind();
        if kind == TypeKind::ParameterBlock || kind == TypeKind::ConstantBuffer {
            let element = ty.element_var_layout();
            if kind == TypeKind::ParameterBlock {
                // A block opens a set: the enclosing set plus the sub-element spaces since
                // the enclosing block's element.
                set += sub;
                sub = 0;
                binding = 0;
            }
            offset = 0;
            binding += element.offset(C::DescriptorTableSlot) as u64;
            offset += element.offset(C::Uniform) as u64;
            sub += element.offset(C::SubElementRegisterSpace) as u64;
            ty = element.type_layout();
        }
        let Some(next) = segments.next() else {
            return Some((set, binding, offset));
        };
        let index = ty.find_field_index_by_name(next);
        var = ty.field_by_index(u32::try_from(index).ok()?)?;
    }
}

/// Does the job of the comparisons every other way — live Slang, Slang's JSON, spirq,
/// rspirv-reflect — and returns every answer that differs from the bind view of the `pbr`
/// entry in `package` (empty when all agree). `spirv` is the entry's SPIR-V modules, `json`
/// Slang's JSON reflection of the program.
///
/// # Panics
/// When the package, the JSON or Slang fail outright.
pub fn cross_check(
    global: &shader_slang::GlobalSession,
    shader_dir: &Path,
    package: &[u8],
    spirv: &[&[u32]],
    json: &str,
) -> Vec<String> {
    let package = slangpack_reader::Package::from_bytes(package).expect("a valid package");
    let bind = package.load(PBR_KEY).expect("the pbr entry").bind();
    let ours = bind
        .binding(PBR_BINDING)
        .map(|b| (u64::from(b.set), u64::from(b.binding)));
    let ours_member = bind
        .buffer_member(PBR_MEMBER)
        .map(|(_, m)| u64::from(m.offset));
    let live = LiveProgram::load(global, shader_dir, "pbr");
    let json: serde_json::Value = serde_json::from_str(json).expect("Slang's JSON");
    let spirq_eps = spirq_reflect(spirv);
    let bytes: Vec<Vec<u8>> = spirv.iter().map(|w| spirv_bytes(w)).collect();
    let refs: Vec<&[u8]> = bytes.iter().map(|b| &b[..]).collect();
    let rspirv_sets = rspirv_reflect(&refs);
    let pair = |(s, b): (u32, u32)| (u64::from(s), u64::from(b));
    let (buffer, member) = PBR_MEMBER_BUFFER;
    let bindings = [
        (
            "live Slang",
            slang_lookup(live.layout(), PBR_BINDING).map(|(s, b, _)| (s, b)),
        ),
        (
            "Slang JSON",
            json_lookup(&json, PBR_BINDING).map(|(s, b, _)| (s, b)),
        ),
        ("spirq", spirq_binding(&spirq_eps, PBR_BINDING).map(pair)),
        (
            "rspirv-reflect",
            rspirv_binding(&rspirv_sets, PBR_BINDING).map(pair),
        ),
    ];
    let members = [
        (
            "live Slang",
            slang_lookup(live.layout(), PBR_MEMBER).map(|t| t.2),
        ),
        ("Slang JSON", json_lookup(&json, PBR_MEMBER).map(|t| t.2)),
        (
            "spirq",
            spirq_member(&spirq_eps, buffer, member).map(|o| o as u64),
        ),
    ];
    let mut out = Vec::new();
    if ours.is_none() || ours_member.is_none() {
        out.push(format!(
            "the bind view finds no {PBR_BINDING} or {PBR_MEMBER}"
        ));
    }
    for (way, found) in bindings {
        if found != ours {
            out.push(format!(
                "{way}: {PBR_BINDING} at {found:?}, the bind view says {ours:?}"
            ));
        }
    }
    for (way, found) in members {
        if found != ours_member {
            out.push(format!(
                "{way}: {PBR_MEMBER} at {found:?}, the bind view says {ours_member:?}"
            ));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// SPIR-V reflection crates on the same SPIR-V.
// ---------------------------------------------------------------------------------------

/// Reflects every module with `spirq` (all resources, as a binder needs them).
///
/// # Panics
/// When spirq rejects a module.
pub fn spirq_reflect(modules: &[&[u32]]) -> Vec<spirq::entry_point::EntryPoint> {
    modules
        .iter()
        .flat_map(|words| {
            spirq::reflect_cfg::ReflectConfig::new()
                .spv(*words)
                .ref_all_rscs(true)
                .reflect()
                .expect("spirq reflects Slang's SPIR-V")
        })
        .collect()
}

/// `(set, binding)` of the descriptor named `name` (Slang names SPIR-V variables with the
/// dotted path) in spirq's reflection.
pub fn spirq_binding(eps: &[spirq::entry_point::EntryPoint], name: &str) -> Option<(u32, u32)> {
    eps.iter()
        .flat_map(|ep| &ep.vars)
        .find_map(|var| match var {
            spirq::var::Variable::Descriptor {
                name: Some(n),
                desc_bind,
                ..
            } if n == name => Some(desc_bind.into_inner()),
            _ => None,
        })
}

/// The offset of `member` (a dotted path) in the uniform buffer variable named `buffer`, from
/// spirq's struct types.
pub fn spirq_member(
    eps: &[spirq::entry_point::EntryPoint],
    buffer: &str,
    member: &str,
) -> Option<usize> {
    use spirq::ty::Type;
    let ty = eps
        .iter()
        .flat_map(|ep| &ep.vars)
        .find_map(|var| match var {
            spirq::var::Variable::Descriptor {
                name: Some(n), ty, ..
            } if n == buffer => Some(ty),
            _ => None,
        })?;
    let mut ty = ty;
    let mut offset = 0;
    for segment in member.split('.') {
        let Type::Struct(s) = ty else { return None };
        let m = s
            .members
            .iter()
            .find(|m| m.name.as_deref() == Some(segment))?;
        offset += m.offset?;
        ty = &m.ty;
    }
    Some(offset)
}

/// Reflects every module with `rspirv-reflect` (it parses the module with `rspirv`) and
/// returns each module's descriptor sets.
///
/// # Panics
/// When rspirv-reflect rejects a module.
pub fn rspirv_reflect(
    modules: &[&[u8]],
) -> Vec<
    std::collections::BTreeMap<
        u32,
        std::collections::BTreeMap<u32, rspirv_reflect::DescriptorInfo>,
    >,
> {
    modules
        .iter()
        .map(|bytes| {
            rspirv_reflect::Reflection::new_from_spirv(bytes)
                .expect("rspirv parses Slang's SPIR-V")
                .get_descriptor_sets()
                .expect("rspirv-reflect's descriptor sets")
        })
        .collect()
}

/// `(set, binding)` of the descriptor named `name` in rspirv-reflect's sets.
pub fn rspirv_binding(
    sets: &[std::collections::BTreeMap<
        u32,
        std::collections::BTreeMap<u32, rspirv_reflect::DescriptorInfo>,
    >],
    name: &str,
) -> Option<(u32, u32)> {
    sets.iter().find_map(|module| {
        module.iter().find_map(|(set, bindings)| {
            bindings
                .iter()
                .find(|(_, info)| info.name == name)
                .map(|(binding, _)| (*set, *binding))
        })
    })
}
