//! Declaration records: the main module's declaration tree and declarations reached from
//! outside it.

use super::values::len32;
use super::Walk;
use slangpack_format::{Decl, DeclKind, ABSENT};
use slangpack_slang::reflection as ffi;

impl<'a> Walk<'a> {
    /// Registers the declaration tree under `root` (records with kind, name, parent and
    /// children, pre-order), then fills each record's payload. Returns the root's index.
    ///
    /// Declarations inside a generic get no payload: their types are unspecialized, and Slang
    /// throws (a C++ exception, which aborts the process) when asked for a size that depends
    /// on a generic parameter, e.g. the column count of `vector<T, N>`. The generic itself
    /// has its [`Generic`](slangpack_format::Generic) record.
    pub(super) fn decl_tree(&mut self, root: ffi::Decl<'a>) -> u32 {
        let mut order = Vec::new();
        let index = self.register_decl(root, ABSENT, false, &mut order);
        for (decl, i, inside_generic) in order {
            if inside_generic {
                continue;
            }
            let payload = self.decl_payload(decl);
            if let Some(mut record) = self.b.get::<Decl>(i) {
                record.payload = payload;
                self.b.set(i, record);
            }
        }
        index
    }

    pub(super) fn register_decl(
        &mut self,
        decl: ffi::Decl<'a>,
        parent: u32,
        inside_generic: bool,
        order: &mut Vec<(ffi::Decl<'a>, u32, bool)>,
    ) -> u32 {
        if let Some(&i) = self.decls.get(&decl.key()) {
            return i;
        }
        let name = self.intern(decl.name());
        let index = self.b.push(Decl {
            kind: decl.kind(),
            name,
            parent,
            payload: ABSENT,
            ..Decl::default()
        });
        self.decls.insert(decl.key(), index);
        order.push((decl, index, inside_generic));
        let generic = inside_generic || decl.kind() == DeclKind::Generic.to_raw();
        let children: Vec<u32> = decl
            .children()
            .into_iter()
            .map(|child| self.register_decl(child, index, generic, order))
            .collect();
        let child_pool = self.b.push_pool(&children);
        if let Some(mut record) = self.b.get::<Decl>(index) {
            record.child_pool = child_pool;
            record.child_count = len32(children.len());
            self.b.set(index, record);
        }
        index
    }

    /// A declaration outside the main module's tree (a generic's inner declaration from an
    /// imported or core module): kind, name and parent chain; no children, and no payload
    /// (it is the unspecialized inner declaration of a generic, see [`Walk::decl_tree`]).
    pub(super) fn decl(&mut self, decl: ffi::Decl<'a>) -> u32 {
        if let Some(&i) = self.decls.get(&decl.key()) {
            return i;
        }
        let name = self.intern(decl.name());
        let child_pool = self.b.push_pool(&[]);
        let index = self.b.push(Decl {
            kind: decl.kind(),
            name,
            parent: ABSENT,
            child_pool,
            child_count: 0,
            payload: ABSENT,
            ..Decl::default()
        });
        self.decls.insert(decl.key(), index);
        let parent = decl.parent().map_or(ABSENT, |p| self.decl(p));
        if let Some(mut record) = self.b.get::<Decl>(index) {
            record.parent = parent;
            self.b.set(index, record);
        }
        index
    }

    /// The record a declaration's kind points at ([`DeclKind`]'s payload table).
    pub(super) fn decl_payload(&mut self, decl: ffi::Decl<'a>) -> u32 {
        match DeclKind::from_raw(decl.kind()) {
            // Enums (SLANG_DECL_KIND_ENUM = 7, not yet named by the format) declare a type too.
            DeclKind::Struct | DeclKind::Enum => self.opt_type(decl.as_type()),
            DeclKind::Func => self.opt_function(decl.as_function()),
            DeclKind::Generic => self.opt_generic(decl.as_generic()),
            DeclKind::Variable => self.opt_variable(decl.as_variable()),
            _ => ABSENT,
        }
    }
}
