//! Text the tools show to people: the reader's escapes ([`slangpack_reader::text`]) and where a
//! target binding sits, in its target's words.

pub use slangpack_reader::text::{escape, is_hidden, quoted, shown, Escape};

/// Where a target binding sits, in its target's words (`register(t0, space1)`), for text
/// shown to people: [`slangpack_format::targets::place_name`], whose only package-derived
/// character (the register class) goes through [`shown`] like every name.
pub(crate) fn place(
    target: slangpack_format::Target,
    binding: &slangpack_format::targets::TargetBinding,
) -> String {
    let text = slangpack_format::targets::place_name(
        target,
        binding.space,
        binding.index,
        binding.register_class,
    );
    shown(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_hold_no_control_character() {
        use slangpack_format::targets::TargetBinding;
        use slangpack_format::Target;
        for class in [0x1b, 0x9b, 0x7f, u32::from(b't')] {
            let b = TargetBinding {
                register_class: class,
                index: 3,
                ..TargetBinding::default()
            };
            let text = place(Target::Hlsl, &b);
            assert!(!text.chars().any(is_hidden), "{text:?}");
        }
    }
}
