//! Frames of an existing package offered to a [`PackageBuilder`] to store again as they are
//! (a merge): compressing a module or blob at the package's level costs about a thousand times
//! what checking its frame does.

use super::*;

/// A package's dictionary section as it is stored, for [`PackageBuilder::offer_dictionary`].
#[derive(Debug, Clone, Copy)]
pub struct StoredDictionary<'a> {
    /// How the section is stored: [`Compression::None`] or [`Compression::Zstd`].
    pub compression: Compression,
    /// The dictionary's size in bytes (the section's raw size).
    pub raw_size: u64,
    /// The section's stored bytes.
    pub stored: &'a [u8],
}

/// Stored frames of one module or blob, made with one offered dictionary (or none).
#[derive(Debug)]
struct Offer {
    /// Index into [`Offers::dictionaries`].
    dictionary: u32,
    compression: Compression,
    stored: Vec<u8>,
}

/// Everything offered to one builder.
#[derive(Debug, Default)]
pub(super) struct Offers {
    /// Each offered dictionary once; `None` stands for frames made without one.
    dictionaries: Vec<Option<Vec<u8>>>,
    /// Module id -> its offered frames, at most one per dictionary.
    spirv: HashMap<u32, Vec<Offer>>,
    /// Reflection blob id -> its offered frames, at most one per dictionary.
    reflection: HashMap<u32, Vec<Offer>>,
}

impl Offers {
    /// The frames offered for each of `items` (a section kind and a module or blob id) that
    /// were made with `dictionary`, in the order of `items`.
    pub(super) fn made_with<'s>(
        &'s self,
        dictionary: Option<&[u8]>,
        items: impl Iterator<Item = (SectionKind, u32)>,
    ) -> Vec<Option<(Compression, &'s [u8])>> {
        let d = self
            .dictionaries
            .iter()
            .position(|known| known.as_deref() == dictionary);
        items
            .map(|(kind, id)| {
                let d = d?;
                let offers = match kind {
                    SectionKind::Spirv => self.spirv.get(&id),
                    _ => self.reflection.get(&id),
                }?;
                let offer = offers.iter().find(|o| o.dictionary as usize == d)?;
                Some((offer.compression, offer.stored.as_slice()))
            })
            .collect()
    }
}

impl PackageBuilder {
    /// Names the dictionary an existing package's frames were made with (`None`: a package
    /// without one), for [`PackageBuilder::offer_frames`]; identical dictionaries get one id.
    /// `None` back when the section cannot be a dictionary this builder makes (larger than
    /// any it makes, or not decompressing to its declared size), so no frame made with it is
    /// offered.
    pub fn offer_dictionary(&mut self, dictionary: Option<StoredDictionary<'_>>) -> Option<u32> {
        let bytes = match dictionary {
            None => None,
            Some(d) => {
                let size = usize::try_from(d.raw_size)
                    .ok()
                    .filter(|&n| n <= MAX_DICTIONARY)?;
                let bytes = match d.compression {
                    Compression::None => d.stored.to_vec(),
                    Compression::Zstd => zstd::bulk::decompress(d.stored, size).ok()?,
                    _ => return None,
                };
                Some(bytes).filter(|b| b.len() == size)
            }
        };
        let known = &mut self.offers.dictionaries;
        let id = match known.iter().position(|k| *k == bytes) {
            Some(id) => id,
            None => {
                known.push(bytes);
                known.len() - 1
            }
        };
        u32::try_from(id).ok()
    }

    /// Offers `stored`, the stored bytes of a section of `kind` ([`SectionKind::Spirv`] or
    /// [`SectionKind::Reflection`]) holding module or blob `id` of this builder, compressed
    /// (`compression`: [`Compression::Zstd`], or [`Compression::ZstdDictionary`] with
    /// `dictionary`) as a package stores it with SPIR-V compressed. Where the dictionary this
    /// builder chooses is that dictionary, the frames are checked (they must decompress to
    /// exactly the module or blob, split as the package format splits a blob) and stored as
    /// they are instead of compressing the module or blob again, as that compression would
    /// make them. Frames that do not check out are ignored. The first offer for each
    /// dictionary is kept.
    pub fn offer_frames(
        &mut self,
        kind: SectionKind,
        id: u32,
        dictionary: u32,
        compression: Compression,
        stored: &[u8],
    ) {
        let offers = match kind {
            SectionKind::Spirv => &mut self.offers.spirv,
            SectionKind::Reflection => &mut self.offers.reflection,
            _ => return,
        };
        let offers = offers.entry(id).or_default();
        if !offers.iter().any(|o| o.dictionary == dictionary) {
            offers.push(Offer {
                dictionary,
                compression,
                stored: stored.to_vec(),
            });
        }
    }
}
