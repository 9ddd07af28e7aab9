//! The dictionary trainer: zstd's fastCover over the samples, with its hash table sized for
//! a shader package rather than for zstd's default.

/// Bits of fastCover's frequency table (`f`): it allocates about `6 * 2^f` bytes. zstd's
/// default, 20, costs a bake 6 MB more at its peak whatever the samples (27.2 against 21.2 MB
/// for 1,000 permutations of a small compute shader, `bake-scale`); with 18 the dictionaries
/// of that bake and of every package of `package-sizes` came out byte for byte the same (16
/// made the 1,000-permutation package 1% larger).
const FREQUENCY_BITS: u32 = 18;

/// A dictionary of at most `capacity` bytes trained on `samples` (items of `sizes` bytes, back
/// to back), as `ZDICT_trainFromBuffer` trains one (fastCover, `d` 8, 4 steps of `k` from 50
/// to 2000, single-threaded) but with a frequency table of 2^[`FREQUENCY_BITS`] slots. `None`
/// when the sizes do not add up to the samples or zstd refuses (too few or too small samples).
#[allow(unsafe_code)]
pub(super) fn train(samples: &[u8], sizes: &[usize], capacity: usize) -> Option<Vec<u8>> {
    use zstd::zstd_safe::zstd_sys::{
        ZDICT_fastCover_params_t, ZDICT_isError, ZDICT_optimizeTrainFromBuffer_fastCover,
        ZDICT_params_t,
    };
    if sizes.iter().sum::<usize>() != samples.len() {
        return None;
    }
    let count = u32::try_from(sizes.len()).ok()?;
    let mut params = ZDICT_fastCover_params_t {
        k: 0,
        d: 8,
        f: FREQUENCY_BITS,
        steps: 4,
        nbThreads: 0,
        splitPoint: 0.0,
        accel: 0,
        shrinkDict: 0,
        shrinkDictMaxRegression: 0,
        zParams: ZDICT_params_t {
            compressionLevel: 0,
            notificationLevel: 0,
            dictID: 0,
        },
    };
    let mut dictionary = vec![0u8; capacity];
    // SAFETY: zstd-safe offers no trainer whose table size can be set, so this calls zstd's
    // own through its declared signature: `dictionary` is writable for `capacity` bytes,
    // `samples` readable for the sum of the `count` sizes that `sizes` holds (checked above),
    // `params` a valid, exclusively borrowed parameter block; zstd keeps none of the
    // pointers past the call and writes at most `capacity` bytes.
    let written = unsafe {
        ZDICT_optimizeTrainFromBuffer_fastCover(
            dictionary.as_mut_ptr().cast(),
            capacity,
            samples.as_ptr().cast(),
            sizes.as_ptr(),
            count,
            &mut params,
        )
    };
    // SAFETY: `ZDICT_isError` reads nothing but its integer argument.
    if unsafe { ZDICT_isError(written) } != 0 || written > capacity {
        return None;
    }
    dictionary.truncate(written);
    Some(dictionary)
}
