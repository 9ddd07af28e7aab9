//! The facts of one module gathered in one pass over its module-scope instructions: the
//! first entry point and its interface, execution modes, capabilities, and every descriptor,
//! block, push-constant, input and output variable (SPIR-V 2.4's logical layout).

use super::{
    instructions, string, BlockVariable, DescriptorVariable, Facts, Index, InputVariable,
    Instruction, OutputVariable, SpecConstant,
};
use ::spirv::{Capability, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};
use slangpack_format::bind::{DescriptorKind, ExecutionModes, ModeFlags};

impl Facts {
    /// Reads `words` and gathers the facts.
    ///
    /// # Errors
    /// A message when the words are not a SPIR-V module: a bad header, or an instruction whose
    /// word count is zero or runs past the end. Instructions, capabilities and operands this
    /// reader does not know are stepped over, never refused.
    pub fn parse(words: &[u32]) -> Result<Facts, String> {
        let all = instructions(words).map_err(|e| format!("the SPIR-V cannot be checked: {e}"))?;
        // Module-scope instructions come before the first function (SPIR-V 2.4): what the
        // checks read is all there.
        let module_scope = all
            .iter()
            .position(|i| i.opcode == Op::Function as u32)
            .map_or(&all[..], |end| &all[..end]);
        let index = Index::new(module_scope);
        let mut facts = Facts::default();
        // The first entry point: its model, id and interface (every global it references,
        // since SPIR-V 1.4; its inputs and outputs before).
        let mut entry: Option<(u32, u32, &[u32])> = None;
        let mut input_attachments = Vec::new();
        let mut mode_flags = ModeFlags::empty();
        for inst in module_scope {
            match Op::from_u32(inst.opcode) {
                // execution model, entry point id, name, interface ids
                Some(Op::EntryPoint) if facts.entry_point_name.is_none() => {
                    let name = inst.operands.get(2..).and_then(string);
                    if let (Some((name, words)), &[model, id, ..]) = (name, inst.operands) {
                        entry = Some((model, id, inst.operands.get(2 + words..).unwrap_or(&[])));
                        facts.entry_point_name = Some(name);
                    }
                }
                Some(Op::Capability) => match inst.operands.first().copied() {
                    Some(c) if c == Capability::InputAttachment as u32 => {
                        mode_flags |= ModeFlags::INPUT_ATTACHMENT_CAPABILITY;
                    }
                    Some(c) if c == Capability::SampleRateShading as u32 => {
                        mode_flags |= ModeFlags::SAMPLE_RATE_SHADING;
                    }
                    _ => {}
                },
                Some(Op::Variable) => {
                    let before = facts.descriptors.len();
                    facts.variable(&index, inst.operands);
                    let input_attachment = facts.descriptors.get(before).is_some_and(|d| {
                        d.descriptor_type == Some(DescriptorKind::InputAttachment)
                    });
                    if let (true, Some(&id)) = (input_attachment, inst.operands.get(1)) {
                        input_attachments.push(id);
                    }
                }
                Some(op @ (Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse)) => {
                    // result type, result id, value words (none for booleans)
                    let Some(&result) = inst.operands.get(1) else {
                        continue;
                    };
                    let Some(id) = index.decoration(result, Decoration::SpecId) else {
                        continue;
                    };
                    let word = |i: usize| u64::from(inst.operands.get(i).copied().unwrap_or(0));
                    let default = match op {
                        Op::SpecConstantTrue => 1,
                        Op::SpecConstantFalse => 0,
                        _ => word(2) | (word(3) << 32),
                    };
                    facts.spec_constants.push(SpecConstant { id, default });
                }
                _ => {}
            }
        }
        facts.inputs.sort_by_key(|i| i.location);
        let blocks = (facts.descriptors.iter().filter_map(|d| d.block.as_ref()))
            .chain(facts.push_constants.iter().map(|p| &p.block))
            .chain(facts.shader_records.iter().map(|r| &r.block));
        facts.pointees = index.pointees(blocks);
        if let Some((model, id, interface)) = entry {
            facts.modes = modes(&index, module_scope, id);
            let version = words.get(1).copied().unwrap_or(0);
            // Since SPIR-V 1.4 the interface lists every global the entry point uses; before,
            // an input attachment is read when a function names it.
            let reads = input_attachments.iter().any(|var| {
                if version >= 0x0001_0400 {
                    interface.contains(var)
                } else {
                    all[module_scope.len()..]
                        .iter()
                        .any(|i| i.operands.contains(var))
                }
            });
            if reads {
                mode_flags |= ModeFlags::READS_INPUT_ATTACHMENTS;
            }
            if model == ExecutionModel::Fragment as u32 {
                facts.outputs = outputs(&index, module_scope, interface);
            }
        }
        facts.modes.flags |= mode_flags.to_raw();
        Ok(facts)
    }

    /// Records a module-scope `OpVariable` (result type, result id, storage class, ...).
    fn variable(&mut self, index: &Index<'_>, operands: &[u32]) {
        let &[ptr, var, class, ..] = operands else {
            return;
        };
        let class = StorageClass::from_u32(class);
        let pointee = match index.op(ptr) {
            Some((Op::TypePointer, &[_, pointee, ..])) => pointee,
            _ => return,
        };
        let name = index.names.get(&var).cloned().unwrap_or_default();
        let set = index.decoration(var, Decoration::DescriptorSet);
        let binding = index.decoration(var, Decoration::Binding);
        match (class, set, binding) {
            (_, Some(set), Some(binding)) => {
                let (element, count) = index.unarray(pointee);
                let descriptor_type = index.descriptor_type(class, element);
                let block = matches!(
                    descriptor_type,
                    Some(DescriptorKind::UniformBuffer | DescriptorKind::StorageBuffer)
                )
                .then(|| index.block(element));
                self.descriptors.push(DescriptorVariable {
                    set,
                    binding,
                    name,
                    descriptor_type,
                    count,
                    input_attachment_index: index.decoration(var, Decoration::InputAttachmentIndex),
                    block,
                });
            }
            (Some(StorageClass::PushConstant), ..) => self.push_constants.push(BlockVariable {
                name,
                block: index.block(pointee),
            }),
            (Some(StorageClass::ShaderRecordBufferKHR), ..) => {
                self.shader_records.push(BlockVariable {
                    name,
                    block: index.block(pointee),
                });
            }
            (Some(StorageClass::Input), ..) => {
                if let Some(location) = index.decoration(var, Decoration::Location) {
                    self.inputs.push(InputVariable {
                        location,
                        name,
                        components: index.components(pointee),
                    });
                }
            }
            _ => {}
        }
    }
}

/// The execution modes `OpExecutionMode` and `OpExecutionModeId` state for entry point `id`.
fn modes(index: &Index<'_>, module: &[Instruction<'_>], id: u32) -> ExecutionModes {
    let mut modes = ExecutionModes::default();
    let mut flags = ModeFlags::empty();
    for inst in module {
        let by_id = inst.opcode == Op::ExecutionModeId as u32;
        if inst.opcode != Op::ExecutionMode as u32 && !by_id {
            continue;
        }
        let &[target, mode, ref rest @ ..] = inst.operands else {
            continue;
        };
        if target != id {
            continue;
        }
        // `OpExecutionModeId` names constants where `OpExecutionMode` has literals.
        let value = rest.first().map_or(0, |&v| {
            if by_id {
                index.constants.get(&v).copied().unwrap_or(0)
            } else {
                v
            }
        });
        let Some(mode_enum) = ExecutionMode::from_u32(mode) else {
            continue;
        };
        match mode_enum {
            ExecutionMode::EarlyFragmentTests => flags |= ModeFlags::EARLY_FRAGMENT_TESTS,
            ExecutionMode::DepthReplacing => flags |= ModeFlags::DEPTH_REPLACING,
            ExecutionMode::DepthGreater => flags |= ModeFlags::DEPTH_GREATER,
            ExecutionMode::DepthLess => flags |= ModeFlags::DEPTH_LESS,
            ExecutionMode::DepthUnchanged => flags |= ModeFlags::DEPTH_UNCHANGED,
            ExecutionMode::PointMode => flags |= ModeFlags::POINT_MODE,
            ExecutionMode::VertexOrderCw => flags |= ModeFlags::VERTEX_ORDER_CW,
            ExecutionMode::VertexOrderCcw => flags |= ModeFlags::VERTEX_ORDER_CCW,
            ExecutionMode::PostDepthCoverage => flags |= ModeFlags::POST_DEPTH_COVERAGE,
            ExecutionMode::InputPoints
            | ExecutionMode::InputLines
            | ExecutionMode::InputLinesAdjacency
            | ExecutionMode::Triangles
            | ExecutionMode::InputTrianglesAdjacency
            | ExecutionMode::Quads
            | ExecutionMode::Isolines => modes.input_primitive = mode,
            ExecutionMode::OutputPoints
            | ExecutionMode::OutputLineStrip
            | ExecutionMode::OutputTriangleStrip
            | ExecutionMode::OutputLinesEXT
            | ExecutionMode::OutputTrianglesEXT => modes.output_primitive = mode,
            ExecutionMode::OutputVertices => modes.output_vertices = value,
            ExecutionMode::OutputPrimitivesEXT => modes.output_primitives = value,
            ExecutionMode::Invocations => modes.invocations = value,
            ExecutionMode::SpacingEqual
            | ExecutionMode::SpacingFractionalEven
            | ExecutionMode::SpacingFractionalOdd => modes.spacing = mode,
            _ => {}
        }
    }
    modes.flags = flags.to_raw();
    modes
}

/// The colour outputs of a fragment entry point: its interface's `Output` variables with a
/// `Location`, sorted by location and index.
fn outputs(
    index: &Index<'_>,
    module: &[Instruction<'_>],
    interface: &[u32],
) -> Vec<OutputVariable> {
    let mut outputs: Vec<OutputVariable> = module
        .iter()
        .filter(|i| i.opcode == Op::Variable as u32)
        .filter_map(|inst| {
            let &[ptr, var, class, ..] = inst.operands else {
                return None;
            };
            if class != StorageClass::Output as u32 || !interface.contains(&var) {
                return None;
            }
            let location = index.decoration(var, Decoration::Location)?;
            let Some((Op::TypePointer, &[_, pointee, ..])) = index.op(ptr) else {
                return None;
            };
            let (element, _) = index.unarray(pointee);
            Some(OutputVariable {
                location,
                index: index.decoration(var, Decoration::Index).unwrap_or(0),
                name: index.names.get(&var).cloned().unwrap_or_default(),
                scalar: index.scalar(element),
                components: index.components(element).unwrap_or(1),
            })
        })
        .collect();
    outputs.sort_by_key(|o| (o.location, o.index));
    outputs
}
