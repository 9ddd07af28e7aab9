//! Interface-typed values in a buffer with several conforming types (dynamic dispatch): the
//! existential header, the payload, and each conforming type's data over the payload's words
//! with the conformance id the code dispatches on.

use super::buffers::{pack, plain, BufferOut, MemberOut};
use super::walk::Walk;
use super::*;
use slangpack_slang::reflection::TypeLayout;

impl<'a> Walk<'a> {
    /// An interface-typed block (`ParameterBlock<ILightEnv>`, `ConstantBuffer<ILightEnv>`,
    /// element type layout `etl`) dispatched among several conforming types: the block is the
    /// existential itself, described as [`Walk::dispatched_value`] describes one in a buffer
    /// (named `existential`). The index of its buffer layout, `None` when it is not
    /// dispatched that way.
    pub(super) fn dispatched_block(
        &mut self,
        path: &str,
        kind: u32,
        etl: TypeLayout<'a>,
        set: u32,
        binding: u32,
    ) -> Option<usize> {
        let interface = etl.ty().and_then(|t| t.name()).unwrap_or_default();
        let header = u(etl.size(CAT_UNIFORM));
        let mut members = Vec::new();
        let name = "existential";
        if !self.dispatched_value(name, name, None, 0, header, &interface, &mut members) {
            return None;
        }
        self.buffers.push(BufferOut {
            name: path.to_string(),
            kind,
            set,
            binding,
            size: header,
            alignment: 16,
            stride: header,
            matrix_layout: 0,
            members,
        });
        Some(self.buffers.len() - 1)
    }

    /// An interface-typed value of `interface`, `size` bytes at `offset`, that the code
    /// dispatches on dynamically among the program's conformances to `interface` (two or
    /// more, no type argument): the existential header ([`MEMBER_EXISTENTIAL`]: a `uint2`
    /// `typeId`, a `uint2` `witnessId` whose first word the code switches on) and the payload
    /// `value` ([`MEMBER_EXISTENTIAL_PAYLOAD`]), whose children are one member per conforming
    /// type ([`MEMBER_CONFORMANCE`], named after the type, in `--conformance` order), each
    /// with the type's members packed into the payload's words as Slang's `AnyValue`
    /// marshalling stores them.
    ///
    /// Returns `false` (and pushes nothing) when the value is not dispatched this way, or a
    /// conforming type does not pack into the payload (see [`pack`]) or is declared for
    /// another interface too (its id would be ambiguous); the value is then refused.
    #[allow(
        clippy::too_many_arguments,
        reason = "the member's place and its interface; a struct adds nothing"
    )]
    pub(super) fn dispatched_value(
        &self,
        name: &str,
        path: &str,
        parent: Option<usize>,
        offset: u32,
        size: u32,
        interface: &str,
        out: &mut Vec<MemberOut>,
    ) -> bool {
        let generics = self.program_layout.type_parameter_count() as usize;
        if self.type_arguments.len() > generics {
            return false;
        }
        let types: Vec<&str> = (self.conformances.iter())
            .filter(|(_, i)| i == interface)
            .map(|(t, _)| t.as_str())
            .collect();
        if types.len() < 2 {
            return false;
        }
        let payload = size.saturating_sub(16);
        let mut packed = Vec::new();
        for ty in &types {
            let twice = self.conformances.iter().filter(|(t, _)| t == ty).count() > 1;
            let concrete = (self.program_layout.find_type_by_name(ty))
                .and_then(|t| self.program_layout.type_layout_of(t));
            let Some(concrete) = concrete.filter(|_| !twice) else {
                return false;
            };
            let mut members = Vec::new();
            let mut words = 0u32;
            let prefix = format!("{path}.value.{ty}");
            if !pack(concrete, &prefix, &mut words, &mut members, 8) || words * 4 > payload {
                return false;
            }
            packed.push((ty, words * 4, members));
        }
        let value = super::buffers::push_existential_header(out, path, name, parent, offset, size);
        for (ty, bytes, members) in packed {
            let at = out.len();
            out.push(MemberOut::plain(
                format!("{path}.value.{ty}"),
                ty,
                Some(value),
                BufferMember {
                    flags: MEMBER_CONFORMANCE,
                    ..plain(KIND_STRUCT, 0, 0, offset + 16, bytes)
                },
            ));
            let first = out.len();
            for (path, name, parent, mut rec) in members {
                rec.offset += offset + 16;
                out.push(MemberOut::plain(
                    path,
                    &name,
                    Some(parent.map_or(at, |p| first + p)),
                    rec,
                ));
            }
        }
        true
    }
}

/// Checks the conformance ids of every dynamically dispatched existential in `walk`'s buffers
/// against each entry point's SPIR-V: a dispatch switch on the first word of the header's
/// `witnessId` must compare it with exactly those ids. An entry point that does not dispatch
/// on the value (it does not read it, or a switch the scan does not follow) checks nothing.
///
/// # Errors
/// [`BakeError::Input`] naming the value, the ids stated and the ids the code switches on.
pub(super) fn check_ids(
    key: &str,
    walk: &Walk<'_>,
    entry_points: &[slangpack_pack::assemble::CompiledEntryPoint],
) -> Result<(), BakeError> {
    let switches: Vec<(&str, Vec<spirv::dispatch::DispatchSwitch>)> = entry_points
        .iter()
        .map(|ep| (ep.name.as_str(), spirv::dispatch::switches(&ep.spirv)))
        .collect();
    for buffer in &walk.buffers {
        let place = (buffer.kind != BUFFER_PUSH_CONSTANT).then_some((buffer.set, buffer.binding));
        for (i, header) in buffer.members.iter().enumerate() {
            if header.rec.flags & MEMBER_EXISTENTIAL == 0
                || header.rec.flags & MEMBER_ELEMENT_RELATIVE != 0
            {
                continue;
            }
            let mut ids: Vec<u32> = Vec::new();
            for (p, payload) in buffer.members.iter().enumerate() {
                if payload.parent != Some(i) || payload.rec.flags & MEMBER_EXISTENTIAL_PAYLOAD == 0
                {
                    continue;
                }
                for m in buffer.members.iter().filter(|m| m.parent == Some(p)) {
                    if m.rec.flags & MEMBER_CONFORMANCE != 0 {
                        let interface = (walk.conformances.iter())
                            .find(|(ty, _)| *ty == m.name)
                            .map_or("", |(_, interface)| interface.as_str());
                        let id =
                            crate::compile::conformance_id(&walk.conformances, &m.name, interface);
                        ids.push(u32::try_from(id).unwrap_or(u32::MAX));
                    }
                }
            }
            if ids.is_empty() {
                continue;
            }
            ids.sort_unstable();
            let witness = header.rec.offset + 8;
            for (entry, found) in &switches {
                for s in found
                    .iter()
                    .filter(|s| s.place == place && s.offset == witness)
                {
                    if s.cases != ids {
                        let name = if buffer.name.is_empty() {
                            "the global uniform buffer"
                        } else {
                            buffer.name.as_str()
                        };
                        return Err(BakeError::Input(format!(
                            "{key}: `{}` in `{name}`: the bind view states conformance ids \
                             {ids:?} for its types, but entry point `{entry}`'s SPIR-V \
                             switches on the witness-table id at offset {witness} with cases \
                             {:?}",
                            header.path, s.cases
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Checks that the data packed into every existential's payload (one type's members, or each
/// conforming type's) lies inside the payload, whose offset and size come from the SPIR-V:
/// those members have no counterpart in the SPIR-V, which declares only `uint` words there.
///
/// # Errors
/// [`BakeError::Input`] naming the member, its bytes and the payload's.
pub(super) fn check_payloads(key: &str, walk: &Walk<'_>) -> Result<(), BakeError> {
    for buffer in &walk.buffers {
        for (p, payload) in buffer.members.iter().enumerate() {
            if payload.rec.flags & MEMBER_EXISTENTIAL_PAYLOAD == 0 {
                continue;
            }
            let start = payload.rec.offset;
            let end = start.saturating_add(payload.rec.size);
            let mut inside = vec![false; buffer.members.len()];
            for (j, m) in buffer.members.iter().enumerate().skip(p + 1) {
                inside[j] = m.parent.is_some_and(|q| q == p || inside[q]);
                let m_end = m.rec.offset.saturating_add(m.rec.size);
                if inside[j] && (m.rec.offset < start || m_end > end) {
                    return Err(BakeError::Input(format!(
                        "{key}: `{}` in `{}` (bytes {}..{m_end}) lies outside its existential's \
                         payload `{}` (bytes {start}..{end} in the SPIR-V)",
                        m.path, buffer.name, m.rec.offset, payload.path
                    )));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::build_tampered;
    use super::*;
    use crate::compile::{CompileOptions, Compiler, Source};

    /// An interface-typed value dispatched between two types: the ids the bind view states are
    /// the SPIR-V's switch's cases, and a conformance list that would number them otherwise
    /// is refused with both.
    #[test]
    fn conformance_ids_are_the_cases_of_the_spirvs_dispatch_switch() {
        const DISPATCH: &str = r#"
            interface ILight { float3 lit(float3 n); };
            struct Sun : ILight { float3 dir; float3 lit(float3 n) { return dir * n; } };
            struct Lamp : ILight { float4 pos; float3 lit(float3 n) { return pos.xyz + n; } };
            struct Scene { float4 tint; ILight light; };
            ConstantBuffer<Scene> gScene;
            RWStructuredBuffer<float4> gOut;
            [shader("compute")] [numthreads(1, 1, 1)]
            void main() { gOut[0] = gScene.tint + float4(gScene.light.lit(float3(1, 2, 3)), 0); }
        "#;
        let source = Source {
            path: "guard.slang".into(),
            text: DISPATCH.into(),
            slang_path: None,
        };
        let options = CompileOptions {
            conformances: vec![
                ("Sun".into(), "ILight".into()),
                ("Lamp".into(), "ILight".into()),
            ],
            ..CompileOptions::default()
        };
        let program = Compiler::new()
            .and_then(|c| c.compile("guard", &source, &options))
            .unwrap_or_else(|e| panic!("{e}"));
        let run = |tamper: fn(&mut Walk<'_>)| {
            let mut builder = slangpack_format::ReflectionBuilder::new();
            build_tampered(&program, "guard", &mut builder, &mut Vec::new(), tamper)
        };
        run(|_| {}).unwrap();
        // Numbered from 1 (another type listed first): Sun 1, Lamp 2, where the code has 0, 1.
        let e = run(|walk| {
            walk.conformances
                .insert(0, ("Moon".into(), "ILight".into()));
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`light` in `gScene`: the bind view states conformance ids [1, 2]")
                && e.contains("switches on the witness-table id at offset 24 with cases [0, 1]"),
            "{e}"
        );
        // A packed member moved out of the payload (the payload's offset is the SPIR-V's).
        let e = run(|walk| {
            let b = walk
                .buffers
                .iter_mut()
                .find(|b| b.name == "gScene")
                .unwrap();
            let m = (b.members.iter_mut())
                .find(|m| m.path == "light.value.Lamp.pos")
                .unwrap();
            m.rec.offset = 0;
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`light.value.Lamp.pos` in `gScene` (bytes 0..16) lies outside")
                && e.contains("payload `light.value` (bytes 32..48 in the SPIR-V)"),
            "{e}"
        );
    }
}
