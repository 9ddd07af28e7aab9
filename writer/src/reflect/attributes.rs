//! User attributes (with their arguments) and modifiers.

use super::values::{len32, string_literal};
use super::Walk;
use slangpack_format::{split_u64, Attribute, AttributeArg, Modifier, ScalarType, ValueKind};
use slangpack_slang::reflection as ffi;

impl<'a> Walk<'a> {
    /// Pushes the modifiers `has` reports (every `SlangModifierID` Slang defines is probed, as
    /// Slang offers no list) and returns (first, count).
    pub(super) fn modifiers(&mut self, has: impl Fn(u32) -> bool) -> (u32, u32) {
        let found: Vec<Modifier> = (0..=ffi::MAX_MODIFIER_ID)
            .filter(|&id| has(id))
            .map(|id| Modifier { id })
            .collect();
        (self.b.push_all(&found), len32(found.len()))
    }

    /// Pushes user attributes (each one's arguments contiguous, the attributes contiguous)
    /// and returns (first, count).
    pub(super) fn attributes(&mut self, attributes: Vec<ffi::UserAttribute<'a>>) -> (u32, u32) {
        let mut records = Vec::with_capacity(attributes.len());
        for attribute in attributes {
            let name = self.intern(attribute.name());
            let args: Vec<AttributeArg> = (0..attribute.argument_count())
                .map(|i| self.attribute_arg(attribute, i))
                .collect();
            let arg_first = self.b.push_all(&args);
            records.push(Attribute {
                name,
                arg_first,
                arg_count: len32(args.len()),
                reserved: 0,
            });
        }
        (self.b.push_all(&records), len32(records.len()))
    }

    pub(super) fn attribute_arg(
        &mut self,
        attribute: ffi::UserAttribute<'a>,
        i: u32,
    ) -> AttributeArg {
        let arg_type = attribute.argument_type(i);
        let type_index = self.opt_type(arg_type);
        let is_bool = arg_type.is_some_and(|t| t.scalar_type() == ScalarType::Bool.to_raw());
        let (kind, value_lo, value_hi) = if let Some(s) = attribute.argument_string(i) {
            let string = self.b.intern(&string_literal(&s));
            (ValueKind::String, string, 0)
        } else if let Some(v) = attribute.argument_int(i) {
            let kind = if is_bool {
                ValueKind::Bool
            } else {
                ValueKind::Int
            };
            let (lo, hi) = split_u64(i64::from(v) as u64);
            (kind, lo, hi)
        } else if let Some(v) = attribute.argument_float(i) {
            let (lo, hi) = split_u64(f64::from(v).to_bits());
            (ValueKind::Float, lo, hi)
        } else {
            (ValueKind::None, 0, 0)
        };
        AttributeArg {
            kind: kind.to_raw(),
            value_lo,
            value_hi,
            type_index,
        }
    }
}
