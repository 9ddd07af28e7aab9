//! Hostile bytes: every truncation and bit flip is an error, and corrupted content with valid
//! checksums never panics.

use super::*;

/// The sample package with reflection compressed, stored raw, and with compressed SPIR-V and
/// a compressed index.
fn hostile_samples() -> [Vec<u8>; 3] {
    let index = sample_package_with(|p| {
        p.set_spirv_compression(Compression::Zstd);
        p.set_compressed_index(true);
    });
    assert_eq!(
        header(&index).flags,
        FLAG_COMPRESSED_INDEX
            | slangpack_format::FLAG_PACKED_INDEX
            | FLAG_CHECKSUM_RUNS
            | slangpack_format::FLAG_BARE_FRAMES
    );
    [
        sample_package(Compression::Zstd),
        sample_package(Compression::None),
        index,
    ]
}

#[test]
fn every_truncation_is_an_error() {
    for bytes in hostile_samples() {
        open_all(&bytes).unwrap();
        for len in 0..bytes.len() {
            assert!(open_all(&bytes[..len]).is_err(), "length {len}");
        }
    }
}

#[test]
fn every_bit_flip_is_an_error() {
    for bytes in hostile_samples() {
        let mut copy = bytes.clone();
        for byte in 0..bytes.len() {
            for bit in 0..8 {
                copy[byte] ^= 1 << bit;
                assert!(open_all(&copy).is_err(), "byte {byte} bit {bit}");
                assert!(loads_fail_in_any_order(&copy), "byte {byte} bit {bit}");
                copy[byte] ^= 1 << bit;
            }
        }
    }
}

/// Opens `bytes` and loads the entries from last to first, then loads every one again: some
/// step fails (and a failed entry fails the same way again).
fn loads_fail_in_any_order(bytes: &[u8]) -> bool {
    let Ok(pkg) = Package::from_bytes(bytes) else {
        return true;
    };
    let mut failed = false;
    for i in (0..pkg.len()).rev() {
        if let Err(first) = pkg.load_at(i) {
            let again = pkg.load_at(i).unwrap_err();
            assert_eq!(
                (first.kind(), first.offset()),
                (again.kind(), again.offset())
            );
            failed = true;
        }
    }
    failed || pkg.verify_all().is_err()
}

/// Touches every accessor of an opened package (must not panic, whatever was accepted).
fn walk(pkg: &Package) -> usize {
    let mut n = 0;
    for e in pkg.entries() {
        let Ok(e) = e else { continue };
        n += e.key().len() + e.dependencies().map(|d| d.path().len()).sum::<usize>();
        for ep in e.entry_points() {
            n += ep.spirv().len() + ep.name().len() + ep.spirv_entry_name().len();
            n += ep.layout().map_or(0, |l| l.parameter_count as usize);
        }
        let Ok(v) = e.reflection() else { continue };
        for t in v.types() {
            n += v.string(t.name).len() + v.type_fields(t).count() + v.type_attributes(t).len();
        }
        for tl in v.type_layouts() {
            n += v.struct_fields(tl).count() + v.type_layout_sizes(tl).count();
            n += v.type_layout_binding_ranges(tl).len() + v.type_layout_sub_object_ranges(tl).len();
            for set in v.type_layout_descriptor_sets(tl) {
                n += v.descriptor_set_ranges(set).len();
            }
        }
        for var in v.variables() {
            n += v.variable_attributes(var).len() + v.variable_modifiers(var).len();
        }
        for vl in v.var_layouts() {
            n += v.var_layout_offsets(vl).count() + v.string(vl.semantic_name).len();
        }
        for f in v.functions() {
            n += v.function_parameters(f).count() + v.function_attributes(f).len();
        }
        for d in v.decls() {
            n += v.decl_children(d).count() + usize::from(v.decl_parent(d).is_some());
        }
        for ep in v.entry_points() {
            n += v.entry_point_parameters(ep).count();
        }
        for a in v.attributes() {
            n += v.attribute_arguments(a).len();
        }
        for b in v.binding_ranges() {
            n += v.binding_range_descriptor_ranges(b).len();
        }
        for h in v.hashed_strings() {
            n += v.string(h.string).len();
        }
        n += usize::from(v.root_decl().is_some())
            + usize::from(v.global_params_var_layout().is_some());
    }
    n
}

/// Random overwrites inside sections, with every checksum recomputed so validation (not the
/// checksums) has to catch them: never a panic, and whatever is accepted can be walked.
#[test]
fn corrupted_content_with_valid_checksums_never_panics() {
    let bytes = sample_package(Compression::None);
    let d = dir(&bytes);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut accepted, mut rejected) = (0, 0);
    for _ in 0..3000 {
        let mut copy = bytes.clone();
        let sec = d[(next() % d.len() as u64) as usize];
        if sec.stored_size() == 0 {
            continue;
        }
        for _ in 0..1 + next() % 3 {
            let at = sec.offset() + next() % sec.stored_size();
            copy[at as usize] = match next() % 3 {
                0 => 0xFF,
                1 => 0,
                _ => next() as u8,
            };
        }
        refix(&mut copy);
        match Package::from_bytes(&copy) {
            Ok(pkg) => {
                walk(&pkg);
                if pkg.verify_all().is_ok() {
                    accepted += 1;
                } else {
                    rejected += 1;
                }
            }
            Err(_) => rejected += 1,
        }
    }
    assert!(
        rejected > 0 && accepted > 0,
        "accepted {accepted}, rejected {rejected}"
    );
}
