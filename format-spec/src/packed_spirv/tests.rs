use super::*;

/// The table [`grammar::OPERANDS`] must be: every instruction of the SPIR-V core grammar
/// (`rspirv`'s copy), as Rust source.
fn generated_grammar() -> String {
    use rspirv::grammar::{OperandKind as O, OperandQuantifier as Q};
    let kind = |o: O| match o {
        O::IdRef | O::IdMemorySemantics | O::IdScope | O::PairIdRefIdRef => kind::ID,
        O::LiteralString => kind::STRING,
        O::LiteralContextDependentNumber => kind::WORD,
        _ => kind::LITERAL,
    };
    let mut rows: Vec<(u16, u8, String)> = Vec::new();
    for op in 0..=u16::MAX {
        let Some(inst) = rspirv::grammar::CoreInstructionTable::lookup_opcode(op) else {
            continue;
        };
        let (mut flags, mut kinds, mut rest) = (0u8, Vec::new(), None);
        for o in inst.operands {
            match (o.kind, o.quantifier) {
                (O::IdResultType, _) => flags |= 1,
                (O::IdResult, _) => flags |= 2,
                (k, Q::ZeroOrMore) => rest = Some(kind(k)),
                (k, _) => kinds.push(kind(k)),
            }
        }
        // Further operands: those the grammar repeats, else an image operand's ids, a
        // constant's further words, or an enumerant's literal parameters.
        let last = inst.operands.last().map(|o| o.kind);
        let rest = rest.unwrap_or(match last {
            Some(O::ImageOperands) => kind::ID,
            Some(O::LiteralContextDependentNumber) => kind::WORD,
            _ => kind::LITERAL,
        });
        kinds.push(rest);
        rows.push((op, flags, String::from_utf8(kinds).expect("ascii")));
    }
    let mut out = String::from(
        "//! The SPIR-V core grammar as packed SPIR-V reads it (SPEC.md 4.3): for each opcode it\n\
         //! knows, sorted, bit 0 set where the instruction has a result type, bit 1 where it has\n\
         //! a result id, then the kinds of its further operands by position (`I` an id, `L` a\n\
         //! literal or an enumerant, `W` a word as it is, `S` a string), the last repeating.\n\
         //! Generated from the SPIR-V core grammar (unified1, SDK 1.3.268) by\n\
         //! `SLANGPACK_WRITE_GRAMMAR=1 cargo test -p slangpack-format grammar`; part of the\n\
         //! format: changing a row changes how packages written before unpack.\n\n\
         /// `(opcode, flags, operand kinds)`, sorted by opcode.\n\
         pub(super) const OPERANDS: &[(u16, u8, &[u8])] = &[\n",
    );
    for (op, flags, kinds) in rows {
        out.push_str(&format!("    ({op}, {flags}, b\"{kinds}\"),\n"));
    }
    out.push_str("];\n");
    out
}

#[test]
fn the_grammar_table_is_the_spirv_core_grammar() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/packed_spirv/grammar.rs");
    let want = generated_grammar();
    if std::env::var_os("SLANGPACK_WRITE_GRAMMAR").is_some() {
        std::fs::write(&path, &want).expect("writing the grammar table");
    }
    let have = std::fs::read_to_string(&path).expect("the grammar table");
    assert!(have == want, "{} differs from the grammar", path.display());
    assert!(grammar::OPERANDS.windows(2).all(|w| w[0].0 < w[1].0));
}

/// A xorshift64 generator from `state` (not 0): the tests' words and mutations.
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

fn round_trip(module: &[u32]) -> Vec<u8> {
    let packed = pack_spirv(module);
    assert!(packed.len() <= packed_spirv_bound(module.len() * 4));
    let mut out = vec![0u8; module.len() * 4];
    unpack_spirv(&packed, &mut out).expect("unpacks");
    let words: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, module);
    packed
}

/// A small compute module, hand-assembled: a header, capabilities, a string, types, a
/// function with loads, an access chain and a store.
fn module() -> Vec<u32> {
    let mut m = vec![0x0723_0203, 0x0001_0500, 0, 40, 0];
    let mut inst = |op: u32, operands: &[u32]| {
        m.push((operands.len() as u32 + 1) << 16 | op);
        m.extend_from_slice(operands);
    };
    inst(17, &[1]); // OpCapability Shader
    inst(14, &[0, 1]); // OpMemoryModel Logical GLSL450
                       // OpEntryPoint GLCompute %4 "main" %10
    inst(15, &[5, 4, u32::from_le_bytes(*b"main"), 0, 10]);
    inst(5, &[10, u32::from_le_bytes(*b"gOut")]); // OpName without its terminator word
    inst(71, &[10, 34, 0]); // OpDecorate %10 DescriptorSet 0
    inst(19, &[2]); // OpTypeVoid %2
    inst(33, &[3, 2]); // OpTypeFunction %3 %2
    inst(22, &[6, 32]); // OpTypeFloat %6 32
    inst(43, &[6, 7, 0x3F80_0000]); // OpConstant %6 %7 1.0
    inst(32, &[8, 12, 6]); // OpTypePointer %8 StorageBuffer %6
    inst(59, &[8, 10, 12]); // OpVariable %8 %10 StorageBuffer
    inst(54, &[2, 4, 0, 3]); // OpFunction %2 %4 None %3
    inst(248, &[11]); // OpLabel %11
    inst(61, &[6, 12, 10]); // OpLoad %6 %12 %10
    inst(129, &[6, 13, 12, 7]); // OpFAdd %6 %13 %12 %7
    inst(62, &[10, 13]); // OpStore %10 %13
    inst(253, &[]); // OpReturn
    inst(56, &[]); // OpFunctionEnd
    m
}

#[test]
fn modules_pack_smaller_and_unpack_byte_for_byte() {
    let m = module();
    let packed = round_trip(&m);
    assert!(
        packed.len() < m.len() * 4 * 3 / 4,
        "{} of {}",
        packed.len(),
        m.len() * 4
    );
}

#[test]
fn any_words_unpack_as_they_were() {
    // Not SPIR-V: shorter than a header, an instruction of 0 words, one past the end,
    // unknown opcodes, strings without an end, every value of a word.
    round_trip(&[]);
    round_trip(&[0x0723_0203, 1, 2]);
    let mut m = module();
    m.push(0);
    m.push(7);
    round_trip(&m);
    let mut m = module();
    m.push(9 << 16 | 15);
    m.push(5);
    round_trip(&m);
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    for round in 0..2000 {
        let len = (next() % 64) as usize;
        let words: Vec<u32> = (0..len)
            .map(|i| match next() % 4 {
                // Mostly instructions of a few words with known opcodes.
                0 if i >= 5 => ((next() % 6 + 1) as u32) << 16 | (next() % 400) as u32,
                1 => (next() % 64) as u32,
                2 => u32::MAX - (next() % 3) as u32,
                _ => next() as u32,
            })
            .collect();
        let _ = round;
        round_trip(&words);
    }
}

#[test]
fn bad_packed_bytes_are_refused_not_misread() {
    let m = module();
    let packed = pack_spirv(&m);
    let mut out = vec![0u8; m.len() * 4];
    // Cut short anywhere, or with a byte left over.
    for cut in 0..packed.len() {
        assert!(
            unpack_spirv(&packed[..cut], &mut out).is_err(),
            "cut at {cut}"
        );
    }
    let mut longer = packed.clone();
    longer.push(0);
    assert!(unpack_spirv(&longer, &mut out).is_err());
    // A module of a size that is not the one packed, or not whole words.
    assert!(unpack_spirv(&packed, &mut vec![0u8; m.len() * 4 + 4]).is_err());
    assert!(unpack_spirv(&packed, &mut vec![0u8; m.len() * 4 - 4]).is_err());
    assert!(unpack_spirv(&packed, &mut vec![0u8; m.len() * 4 + 1]).is_err());
    // A value past 32 bits, and one of six bytes.
    let header = 20;
    let mut wide = packed[..header].to_vec();
    wide.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0x1F]);
    assert!(unpack_spirv(&wide, &mut out).is_err());
    // Any bytes: an error or a module, never a panic.
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    for _ in 0..5000 {
        let state = next();
        let mut bytes = packed.clone();
        let at = (state % bytes.len() as u64) as usize;
        bytes[at] = (state >> 32) as u8;
        let _ = unpack_spirv(&bytes, &mut out);
    }
}
