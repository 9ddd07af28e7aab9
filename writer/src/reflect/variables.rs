//! Variable and variable-layout records.

use super::values::{default_value, len32, size32};
use super::Walk;
use slangpack_format::{Attribute, Modifier, VarLayout, Variable, ABSENT};
use slangpack_slang::reflection::{self as ffi, CATEGORY_UNIFORM};

impl<'a> Walk<'a> {
    pub(super) fn variable(&mut self, v: ffi::Variable<'a>) -> u32 {
        if let Some(&i) = self.variables.get(&v.key()) {
            return i;
        }
        let index = self.b.push(Variable::default());
        self.variables.insert(v.key(), index);

        let name = self.intern(v.name());
        let ty = v.ty();
        let type_index = self.opt_type(ty);
        let (modifier_first, modifier_count) = self.modifiers(|id| v.has_modifier(id));
        let (attribute_first, attribute_count) = self.attributes(v.user_attributes());
        let (default_kind, default_lo, default_hi) = default_value(v, ty);
        let generic_container = self.opt_generic(v.generic_container());
        self.b.set(
            index,
            Variable {
                name,
                type_index,
                modifier_first,
                modifier_count,
                attribute_first,
                attribute_count,
                default_kind,
                default_lo,
                default_hi,
                generic_container,
                flags: 0,
                reserved: 0,
            },
        );
        index
    }

    /// A variable of which only the name can be asked: a generic's type parameter (Slang
    /// hands it out as a variable, but it is a type declaration) or a variable Slang
    /// synthesizes outside any module (an explicit counter).
    pub(super) fn name_only_variable(&mut self, v: ffi::Variable<'a>) -> u32 {
        if let Some(&i) = self.variables.get(&v.key()) {
            return i;
        }
        let name = self.intern(v.name());
        let modifier_first = self.b.table_len::<Modifier>();
        let attribute_first = self.b.table_len::<Attribute>();
        let index = self.b.push(Variable {
            name,
            type_index: ABSENT,
            modifier_first,
            attribute_first,
            generic_container: ABSENT,
            ..Variable::default()
        });
        self.variables.insert(v.key(), index);
        index
    }

    pub(super) fn var_layout(&mut self, v: ffi::VarLayout<'a>) -> u32 {
        if let Some(&i) = self.var_layouts.get(&v.key()) {
            return i;
        }
        let index = self.b.push(VarLayout::default());
        self.var_layouts.insert(v.key(), index);

        let variable_handle = v.variable();
        let variable = self.opt_variable(variable_handle);
        let name = self.intern(variable_handle.and_then(|var| var.name()));
        let type_layout_handle = v.type_layout();
        let type_layout = self.opt_type_layout(type_layout_handle);
        let categories = type_layout_handle
            .map(|tl| tl.categories())
            .unwrap_or_default();
        let category_pool = self.b.push_pool(&categories);
        let offsets: Vec<u32> = categories.iter().map(|&c| size32(v.offset(c))).collect();
        let offset_pool = self.b.push_pool(&offsets);
        let spaces: Vec<u32> = categories.iter().map(|&c| size32(v.space(c))).collect();
        let space_pool = self.b.push_pool(&spaces);
        let semantic_name = self.intern(v.semantic_name());
        let uniform_offset = if categories.contains(&CATEGORY_UNIFORM) {
            size32(v.offset(CATEGORY_UNIFORM))
        } else {
            ABSENT
        };
        self.b.set(
            index,
            VarLayout {
                variable,
                type_layout,
                name,
                category_count: len32(categories.len()),
                category_pool,
                offset_pool,
                space_pool,
                semantic_name,
                semantic_index: size32(v.semantic_index()),
                stage: v.stage(),
                image_format: v.image_format(),
                binding_index: v.binding_index(),
                binding_space: v.binding_space(),
                uniform_offset,
                flags: 0,
                reserved: 0,
            },
        );
        index
    }
}
