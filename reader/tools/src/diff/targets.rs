//! Differences of the further targets (WGSL, GLSL, HLSL, Metal): targets baked or no longer
//! baked, each binding's place and properties, and each buffer's own member layout.

use super::*;

impl Differ<'_, '_> {
    /// Per target (WGSL, GLSL, HLSL, Metal): a target baked or no longer baked, and each
    /// binding's place in the target's code (`@group/@binding`, register, Metal index), kind,
    /// count, flags, minimum buffer size, texture view dimension, sample type and format.
    pub(super) fn targets<'v>(&mut self, ba: &BindView<'v>, bb: &BindView<'v>) {
        let targets = |bind: &BindView<'_>| {
            bind.targets()
                .map(|t| {
                    let count = bind.target(t).bindings().len();
                    (format!("target {}", t.name()), (t, count))
                })
                .collect::<Vec<_>>()
        };
        self.matched(
            targets(ba),
            targets(bb),
            |(_, count)| format!("{count} bindings"),
            |d, _, (x, _), _| {
                let bindings = |bind: &BindView<'v>| -> Vec<(String, &'v TargetBinding)> {
                    let view = bind.target(*x);
                    let records = view.bindings();
                    // Records per path, counted once (a scan per record was quadratic).
                    let mut per_path: HashMap<&str, usize> = HashMap::new();
                    for b in records {
                        *per_path.entry(view.path(b)).or_insert(0) += 1;
                    }
                    records
                        .iter()
                        .map(|b| {
                            let path = view.path(b);
                            let shared = per_path.get(path).copied().unwrap_or(0);
                            let key = if shared > 1 {
                                format!(
                                    "{} binding {path} {}",
                                    x.name(),
                                    kind_name(b.binding_kind())
                                )
                            } else {
                                format!("{} binding {path}", x.name())
                            };
                            // The record itself, not a copy: the view finds a record's
                            // own layout by its place in the table.
                            (key, b)
                        })
                        .collect()
                };
                let target = *x;
                let (va, vb) = (ba.target(target), bb.target(target));
                d.matched(
                    bindings(ba),
                    bindings(bb),
                    |b| target_binding_summary(target, b),
                    |d, subject, &p, &q| {
                        d.target_members(subject, (ba, &va, p), (bb, &vb, q));
                        let place = |b: &TargetBinding| crate::text::place(target, b);
                        d.property(subject, "place", place(p), place(q));
                        d.property(
                            subject,
                            "kind",
                            kind_name(p.binding_kind()),
                            kind_name(q.binding_kind()),
                        );
                        d.property(subject, "count", p.count, q.count);
                        let flags = |b: &TargetBinding| {
                            target_flag_names(b.flags).collect::<Vec<_>>().join(",")
                        };
                        d.property(subject, "flags", flags(p), flags(q));
                        d.property(
                            subject,
                            "min binding size",
                            p.min_binding_size,
                            q.min_binding_size,
                        );
                        let dim = |b: &TargetBinding| {
                            view_dimension_name(b.view_dimension).unwrap_or("none")
                        };
                        d.property(subject, "view dimension", dim(p), dim(q));
                        let sample =
                            |b: &TargetBinding| sample_type_name(b.sample_type).unwrap_or("none");
                        d.property(subject, "sample type", sample(p), sample(q));
                        let format =
                            |b: &TargetBinding| image_format_name(b.format).unwrap_or("none");
                        d.property(subject, "format", format(p), format(q));
                    },
                );
            },
        );
    }
}

impl Differ<'_, '_> {
    /// The target's own member layout of a buffer binding on both sides (HLSL, Metal; since
    /// format 1.4): a layout gained or lost, and each member's offset, size, array stride and
    /// matrix stride on the target, by member path.
    fn target_members(
        &mut self,
        subject: &str,
        (ba, va, p): (&BindView<'_>, &TargetBindView<'_>, &TargetBinding),
        (bb, vb, q): (&BindView<'_>, &TargetBindView<'_>, &TargetBinding),
    ) {
        let members = |bind: &BindView<'_>, view: &TargetBindView<'_>, b: &TargetBinding| {
            let own = view.buffer_layout(b).target_buffer()?;
            let vulkan = bind.buffer_layout(own.buffer_layout)?;
            let list: Vec<(String, TargetMember)> = bind
                .members(vulkan)
                .iter()
                .zip(view.target_members(own))
                .map(|(m, t)| (format!("{subject} member {}", bind.string(m.path)), *t))
                .collect();
            Some((own.size, list))
        };
        match (members(ba, va, p), members(bb, vb, q)) {
            (None, None) => {}
            (a, b) => {
                let size = |l: &Option<(u32, _)>| {
                    l.as_ref()
                        .map_or("none".to_string(), |(n, _)| format!("{n} bytes"))
                };
                self.property(subject, "target layout", size(&a), size(&b));
                let list = |l: Option<(u32, Vec<_>)>| l.map(|(_, m)| m).unwrap_or_default();
                self.matched(
                    list(a),
                    list(b),
                    |t| format!("offset {}, {} bytes", t.offset, t.size),
                    |d, subject, t, u| {
                        d.property(subject, "target offset", t.offset, u.offset);
                        d.property(subject, "target size", t.size, u.size);
                        d.property(
                            subject,
                            "target array stride",
                            t.array_stride,
                            u.array_stride,
                        );
                        d.property(
                            subject,
                            "target matrix stride",
                            t.matrix_stride,
                            u.matrix_stride,
                        );
                    },
                );
            }
        }
    }
}

/// A target binding in a few words: its place and kind.
fn target_binding_summary(target: slangpack_format::Target, b: &TargetBinding) -> String {
    format!(
        "{}, {}",
        crate::text::place(target, b),
        kind_name(b.binding_kind())
    )
}
