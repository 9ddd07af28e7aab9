//! The package's bytes from a [`PackageBuilder`], as named steps: entries in key order, the
//! modules and reflection blobs numbered by first use, the container tables, the modules and
//! blobs stored (sharing a dictionary, each compressed alone, or as they are), the target
//! code and the shard record, and the layout.

use super::*;

/// Where the builder's modules and reflection blobs go in the package: numbered by first use
/// in sorted-entry order.
struct Numbering {
    /// For each module id, its index in the package (`ABSENT`: unused).
    spirv_map: Vec<u32>,
    /// The module ids in package order.
    spirv_order: Vec<usize>,
    /// For each reflection id, its index in the package (`ABSENT`: unused).
    refl_map: Vec<u32>,
    /// The reflection ids in package order.
    refl_order: Vec<usize>,
}

/// The container sections and what the entry points' target code needs.
struct Tables {
    /// The string pool and the entry, entry-point and dependency tables.
    containers: Vec<RawSection>,
    /// One record per entry point and further target.
    entry_point_targets: Vec<EntryPointTargetRecord>,
    /// The target code ids in package order.
    code_order: Vec<usize>,
}

impl PackageBuilder {
    pub(super) fn finish_into(mut self, out: &mut dyn Sink) -> Result<u64, BuildError> {
        self.entries
            .sort_by(|a, b| a.key.as_bytes().cmp(b.key.as_bytes()));
        let numbering = self.numbering();
        let Tables {
            mut containers,
            entry_point_targets,
            code_order,
        } = self.tables(&numbering)?;
        debug_assert!(containers.iter().map(|c| c.kind).eq(SectionKind::CONTAINERS
            .into_iter()
            .filter(|&k| k != SectionKind::KeyIndex)
            .map(SectionKind::to_raw)));
        // Reflection blobs and target code: zstd without a dictionary unless stored raw.
        let mut zstd_blobs = match self.reflection_compression {
            Compression::Zstd => Some(compressor(self.zstd_level, None)?),
            _ => None,
        };
        let mut sections = if self.spirv_compression == Compression::Zstd {
            self.compressed_modules(&numbering, &mut containers, zstd_blobs.is_some())?
        } else {
            self.raw_modules(&numbering, zstd_blobs.as_mut())?
        };
        if !entry_point_targets.is_empty() {
            sections.push(Piece::Owned(table_section(&entry_point_targets)?));
        }
        for &i in &code_order {
            let raw = &self.target_code[i];
            sections.push(Piece::Owned(blob_section(
                SectionKind::TargetCode,
                zstd_blobs.as_mut(),
                raw,
                false,
            )?));
        }
        if let Some(shard) = self.shard {
            // Last, uncompressed: the package without it is the same bytes up to here.
            sections.push(Piece::Owned(table_section(&[shard])?));
        }
        if self.compressed_index {
            // The default layout stores its frames bare (2.4, SPEC.md 4.2): 4 bytes fewer each.
            let bare = self.spirv_compression == Compression::Zstd;
            if bare {
                for piece in &mut sections {
                    if let Piece::Owned(section) = piece {
                        section.make_bare()?;
                    }
                }
            }
            lay_out_to(&containers, &sections, (Some(self.zstd_level), bare), out)
        } else {
            let all: Vec<Piece<'_>> = containers
                .into_iter()
                .map(Piece::Owned)
                .chain(sections)
                .collect();
            lay_out_to(&[], &all, (None, false), out)
        }
    }

    /// Renumbers the modules and reflection blobs by first use in sorted-entry order.
    fn numbering(&self) -> Numbering {
        let mut n = Numbering {
            spirv_map: vec![ABSENT; self.spirv.len()],
            spirv_order: Vec::new(),
            refl_map: vec![ABSENT; self.reflections.len()],
            refl_order: Vec::new(),
        };
        for e in &self.entries {
            if let Some(r) = e.reflection {
                let slot = &mut n.refl_map[r as usize];
                if *slot == ABSENT {
                    *slot = n.refl_order.len() as u32;
                    n.refl_order.push(r as usize);
                }
            }
            for ep in &e.entry_points {
                let slot = &mut n.spirv_map[ep.spirv as usize];
                if *slot == ABSENT {
                    *slot = n.spirv_order.len() as u32;
                    n.spirv_order.push(ep.spirv as usize);
                }
            }
        }
        n
    }

    /// The string pool and the entry, entry-point and dependency tables of the sorted
    /// entries, with the entry points' target records and the target code they use.
    fn tables(&self, numbering: &Numbering) -> Result<Tables, BuildError> {
        let mut code_map = vec![ABSENT; self.target_code.len()];
        let mut code_order = Vec::new();
        let mut entry_point_targets = Vec::new();

        let mut strings = PoolBuilder::default();
        let mut entries = Vec::with_capacity(self.entries.len());
        let mut entry_points = Vec::new();
        let mut dependencies = Vec::new();
        for e in &self.entries {
            let key = strings.intern(&e.key);
            let (options_hash_lo, options_hash_hi) = split_u64(e.options_hash);
            let entry_point_first = count_u32(entry_points.len(), "entry points")?;
            let dependency_first = count_u32(dependencies.len(), "dependencies")?;
            for (ep_index, ep) in e.entry_points.iter().enumerate() {
                let range =
                    (e.key.clone(), ep_index as u32, 0)..(e.key.clone(), ep_index as u32 + 1, 0);
                let global_index = count_u32(entry_points.len(), "entry points")?;
                entry_points.push(EntryPointRecord {
                    name: strings.intern(&ep.name),
                    spirv_entry_name: strings.intern(&ep.spirv_entry_name),
                    stage: ep.stage.to_raw(),
                    thread_group_size_x: ep.thread_group_size[0],
                    thread_group_size_y: ep.thread_group_size[1],
                    thread_group_size_z: ep.thread_group_size[2],
                    wave_size: ep.wave_size,
                    spirv: numbering.spirv_map[ep.spirv as usize],
                    reflection_entry_point: ep.reflection_entry_point.unwrap_or(ABSENT),
                    // 2.0: the hash is derived from the module's words (SPEC.md 5.4).
                    hash_lo: 0,
                    hash_hi: 0,
                    flags: 0,
                });
                for ((_, _, target), (entry_name, id)) in self.entry_point_targets.range(range) {
                    let slot = &mut code_map[*id as usize];
                    if *slot == ABSENT {
                        *slot = code_order.len() as u32;
                        code_order.push(*id as usize);
                    }
                    entry_point_targets.push(EntryPointTargetRecord {
                        entry_point: global_index,
                        target: *target,
                        code: *slot,
                        entry_name: strings.intern(entry_name),
                    });
                }
            }
            for dep in &e.dependencies {
                let (hash_lo, hash_hi) = split_u64(dep.hash);
                dependencies.push(DependencyRecord {
                    path: strings.intern(&dep.path),
                    hash_lo,
                    hash_hi,
                });
            }
            // 2.0: no key hash (lookups compare keys) and no entry-point hash (derived from the
            // first entry point's module at the load): SPEC.md 5.2.
            entries.push(EntryRecord {
                key,
                key_hash_lo: 0,
                key_hash_hi: 0,
                reflection: e
                    .reflection
                    .map_or(ABSENT, |r| numbering.refl_map[r as usize]),
                entry_point_first,
                entry_point_count: count_u32(e.entry_points.len(), "entry points")?,
                dependency_first,
                dependency_count: count_u32(e.dependencies.len(), "dependencies")?,
                options_hash_lo,
                options_hash_hi,
                entry_point_hash_lo: 0,
                entry_point_hash_hi: 0,
            });
        }

        // The container sections of 2.0: those of 1.x but the key index.
        let containers = vec![
            raw_section(SectionKind::Strings, 0, 0, strings.finish()?),
            table_section(&entries)?,
            table_section(&entry_points)?,
            table_section(&dependencies)?,
        ];
        Ok(Tables {
            containers,
            entry_point_targets,
            code_order,
        })
    }

    /// The modules (taken out of the builder, read back from the spool if any) and, when
    /// `zstd_blobs`, the reflection blobs, compressed against one trained dictionary; without
    /// `zstd_blobs` the blobs follow as they are. Without a compressed index the container
    /// tables are compressed too, each where that makes it smaller.
    fn compressed_modules(
        &mut self,
        numbering: &Numbering,
        containers: &mut [RawSection],
        zstd_blobs: bool,
    ) -> Result<Vec<Piece<'static>>, BuildError> {
        let Numbering {
            spirv_order,
            refl_order,
            ..
        } = numbering;
        let blobs: Vec<&[u8]> = refl_order
            .iter()
            .map(|&i| self.reflections[i].as_slice())
            .collect();
        // Taken out of the builder: each module is read in turn (back from the spool, if
        // any) when the dictionary is chosen and when it is compressed, never all at once.
        let trained_blobs: &[&[u8]] = if zstd_blobs { &blobs } else { &[] };
        // Packed (SPEC.md 4.3): zstd finds more in a module's ids as differences.
        let modules = ModuleSource::new(
            std::mem::take(&mut self.spirv),
            self.spool.as_ref(),
            spirv_order,
        )?
        .packed();
        // Small packages: the container tables are compressed too (each, or in the
        // compressed index), and the modules and blobs share a dictionary.
        if !self.compressed_index {
            let mut c = compressor(self.zstd_level, None)?;
            for s in containers {
                let stored = compress(&mut c, &s.stored)?;
                if stored.len() < s.stored.len() {
                    s.stored = stored;
                    s.compression = Compression::Zstd.to_raw();
                }
            }
        }
        let items = spirv_order
            .iter()
            .map(|&i| (SectionKind::Spirv, i as u32))
            .chain(
                refl_order
                    .iter()
                    .take(trained_blobs.len())
                    .map(|&i| (SectionKind::Reflection, i as u32)),
            );
        let offers = &self.offers;
        let offered = |dictionary: Option<&[u8]>| offers.made_with(dictionary, items);
        let mut sections: Vec<Piece<'static>> =
            with_dictionary(&modules, trained_blobs, self.zstd_level, offered)?
                .into_iter()
                .map(Piece::Owned)
                .collect();
        if !zstd_blobs {
            for raw in &blobs {
                sections.push(Piece::Owned(blob_section(
                    SectionKind::Reflection,
                    None,
                    raw,
                    false,
                )?));
            }
        }
        Ok(sections)
    }

    /// The modules laid out straight from the builder's words or its spool (the SPIR-V is
    /// never held twice), then the reflection blobs, compressed with `zstd_blobs` unless
    /// stored raw.
    fn raw_modules(
        &self,
        numbering: &Numbering,
        mut zstd_blobs: Option<&mut zstd::bulk::Compressor<'static>>,
    ) -> Result<Vec<Piece<'_>>, BuildError> {
        let mut sections = Vec::new();
        for &i in &numbering.spirv_order {
            sections.push(match (&self.spirv[i], &self.spool) {
                (Module::Words(words), _) => Piece::Words(words),
                (
                    &Module::Spooled {
                        offset,
                        words,
                        hash,
                    },
                    Some(spool),
                ) => Piece::Spooled {
                    spool,
                    offset,
                    words,
                    hash,
                },
                (Module::Spooled { .. }, None) => {
                    return Err(BuildError::Spool("a module's spool file is gone".into()))
                }
            });
        }
        let bind_raw = self.bind_view_compression == Compression::None;
        for &i in &numbering.refl_order {
            let raw = self.reflections[i].as_slice();
            let frames = self.reflection_frames.get(i).and_then(Option::as_ref);
            sections.push(Piece::Owned(match (frames, &zstd_blobs) {
                // Frames given and checked: stored as they are, not compressed again.
                (Some(frames), Some(_)) => compressed_section(
                    SectionKind::Reflection,
                    Compression::Zstd,
                    raw.len(),
                    frames.stored_as(raw, bind_raw),
                ),
                _ => blob_section(
                    SectionKind::Reflection,
                    zstd_blobs.as_deref_mut(),
                    raw,
                    bind_raw,
                )?,
            }));
        }
        Ok(sections)
    }
}
