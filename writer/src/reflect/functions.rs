//! Function, generic and entry-point records.

use super::values::len32;
use super::Walk;
use slangpack_format::{EntryPointLayout, Function, Generic, ABSENT, UNBOUNDED};
use slangpack_slang::reflection as ffi;

impl<'a> Walk<'a> {
    pub(super) fn function(&mut self, f: ffi::Function<'a>) -> u32 {
        if let Some(&i) = self.functions.get(&f.key()) {
            return i;
        }
        let index = self.b.push(Function::default());
        self.functions.insert(f.key(), index);

        let name = self.intern(f.name());
        let return_type = self.opt_type(f.result_type());
        let parameters: Vec<u32> = f
            .parameters()
            .into_iter()
            .map(|p| self.variable(p))
            .collect();
        let parameter_pool = self.b.push_pool(&parameters);
        let (modifier_first, modifier_count) = self.modifiers(|id| f.has_modifier(id));
        let (attribute_first, attribute_count) = self.attributes(f.user_attributes());
        let generic_container = self.opt_generic(f.generic_container());
        self.b.set(
            index,
            Function {
                name,
                return_type,
                parameter_pool,
                parameter_count: len32(parameters.len()),
                modifier_first,
                modifier_count,
                attribute_first,
                attribute_count,
                generic_container,
                flags: 0,
                reserved0: 0,
                reserved1: 0,
            },
        );
        index
    }

    /// A generic, keyed on its declaration: Slang hands out one `GenericReflection` per
    /// specialization context (`vector` once per vector type), and the record holds nothing
    /// that differs between them.
    pub(super) fn generic(&mut self, g: ffi::Generic<'a>) -> u32 {
        let key = g.as_decl().map_or(g.key(), |d| d.key());
        if let Some(&i) = self.generics.get(&key) {
            return i;
        }
        let index = self.b.push(Generic::default());
        self.generics.insert(key, index);

        let name = self.intern(g.name());
        let inner_decl = g.inner_decl().map_or(ABSENT, |d| self.decl(d));
        let outer_generic = self.opt_generic(g.outer_generic());
        let type_params = g.type_parameters();
        let type_parameters: Vec<u32> = type_params
            .iter()
            .map(|&p| self.name_only_variable(p))
            .collect();
        let value_parameters: Vec<u32> = g
            .value_parameters()
            .into_iter()
            .map(|p| self.variable(p))
            .collect();
        let mut constraints = Vec::new();
        for (&param, &param_index) in type_params.iter().zip(&type_parameters) {
            for constraint in g.constraints(param) {
                let constraint_type = self.ty(constraint);
                constraints.extend([param_index, constraint_type]);
            }
        }
        let type_parameter_pool = self.b.push_pool(&type_parameters);
        let value_parameter_pool = self.b.push_pool(&value_parameters);
        let constraint_pool = self.b.push_pool(&constraints);
        self.b.set(
            index,
            Generic {
                name,
                inner_decl,
                inner_kind: g.inner_kind(),
                outer_generic,
                type_parameter_pool,
                type_parameter_count: len32(type_parameters.len()),
                value_parameter_pool,
                value_parameter_count: len32(value_parameters.len()),
                constraint_pool,
                constraint_count: len32(constraints.len() / 2),
                reserved0: 0,
                reserved1: 0,
            },
        );
        index
    }

    pub(super) fn entry_point(&mut self, ep: ffi::EntryPoint<'a>) -> u32 {
        let index = self.b.push(EntryPointLayout::default());
        let name = self.intern(ep.name());
        let name_override = self.intern(ep.name_override());
        let parameters: Vec<u32> = ep
            .parameters()
            .into_iter()
            .map(|p| self.var_layout(p))
            .collect();
        let parameter_pool = self.b.push_pool(&parameters);
        let var_layout = self.opt_var_layout(ep.var_layout());
        let result_var_layout = self.opt_var_layout(ep.result_var_layout());
        let function = self.opt_function(ep.function());
        let [x, y, z] = ep.thread_group_size();
        self.b.set(
            index,
            EntryPointLayout {
                name,
                name_override,
                stage: ep.stage(),
                thread_group_size_x: u32::try_from(x).unwrap_or(UNBOUNDED),
                thread_group_size_y: u32::try_from(y).unwrap_or(UNBOUNDED),
                thread_group_size_z: u32::try_from(z).unwrap_or(UNBOUNDED),
                wave_size: u32::try_from(ep.wave_size()).unwrap_or(UNBOUNDED),
                parameter_pool,
                parameter_count: len32(parameters.len()),
                var_layout,
                result_var_layout,
                function,
                uses_any_sample_rate_input: u32::from(ep.uses_any_sample_rate_input()),
                has_default_constant_buffer: u32::from(ep.has_default_constant_buffer()),
                flags: 0,
                reserved: 0,
            },
        );
        index
    }
}
