//! Filling buffers by name: a bounds-checked, type-checked writer over a buffer layout of the
//! bind view ([`BufferLayoutView::writer`]), and [`Field`] handles that resolve a path once.
//!
//! A path is the one [`BindView::buffer_member`] takes — the buffer's name, a dot, the
//! member's path (`gScene.material.params.roughness`) — with array elements indexed
//! (`gParams.lights[2].dir`, `gParams.weights[3]`). Values are Rust scalars (`f32`, `u32`,
//! `i32`, `bool`, `f64`, ...), vectors as arrays (`[f32; 3]` for a `float3`) and matrices as
//! arrays of rows (`[[f32; 4]; 3]` for a `float3x4`, indexed `m[row][column]` as Slang indexes
//! a matrix): the writer places each element by the member's matrix layout and stride (a
//! column-major `float3x4` in a uniform buffer is four 16-byte columns of three lanes).
//! Setting a value resolves the path through the bind view's names and allocates nothing;
//! only an error allocates (it owns its path).
//!
//! Offsets are from the start of the block, for push-constant blocks too: a range that starts
//! at its first member (`[[vk::offset(12)]]`) pushes `bytes[range.offset..][..range.size]` at
//! `range.offset`.

use crate::bind::BindView;
use slangpack_format::bind::{
    BufferLayout, BufferMember, ARRAY_UNBOUNDED, MEMBER_ELEMENT_RELATIVE,
};
use slangpack_format::targets::{TargetBuffer, TargetMember};
use slangpack_format::ABSENT;
use slangpack_format::{MatrixLayout, ScalarType, Target, TypeKind};
use std::fmt;
use std::marker::PhantomData;

/// One buffer layout of a bind view (a uniform buffer, a push-constant block, a structured
/// buffer's element), with its members: what [`BufferLayoutView::writer`] fills. From
/// [`BindView::buffer_view`], [`BindView::buffer_view_at`] or
/// [`crate::TargetBindView::buffer_view`].
#[derive(Debug, Clone, Copy)]
pub struct BufferLayoutView<'a> {
    bind: BindView<'a>,
    index: u32,
    record: &'a BufferLayout,
    /// A further target's layout of the same buffer (HLSL, Metal): its index among the
    /// target buffers, the record and its members, parallel to the Vulkan layout's.
    target: Option<(u32, &'a TargetBuffer, &'a [TargetMember])>,
}

/// Where a member lies in the layout being filled: the Vulkan view's numbers, or the
/// target's.
#[derive(Clone, Copy)]
struct Place {
    offset: u32,
    array_stride: u32,
    matrix_stride: u32,
    matrix_layout: u32,
}

impl<'a> BindView<'a> {
    /// The buffer layout named `name` (the owning parameter's path: `gParams`,
    /// `gScene.material`, a push-constant block's name), ready to fill; `None` when there is
    /// none. O(1) expected, no allocation.
    #[must_use]
    pub fn buffer_view(&self, name: &str) -> Option<BufferLayoutView<'a>> {
        let record = self.buffer(name)?;
        self.view_of(record)
    }

    /// The buffer layout at `index` in [`BindView::buffer_layouts`] (a
    /// `DescriptorBinding::buffer_layout` or `PushConstantRange::buffer_layout`); `None` for
    /// an absent or out-of-range index.
    #[must_use]
    pub fn buffer_view_at(&self, index: u32) -> Option<BufferLayoutView<'a>> {
        let record = self.buffer_layout(index)?;
        Some(BufferLayoutView {
            bind: *self,
            index,
            record,
            target: None,
        })
    }

    /// The view of `record`, a record of this bind view's buffer layouts.
    pub(crate) fn view_of(&self, record: &'a BufferLayout) -> Option<BufferLayoutView<'a>> {
        let base = self.buffer_layouts().as_ptr() as usize;
        let at = core::ptr::from_ref(record) as usize;
        let offset = at.checked_sub(base)?;
        let size = size_of::<BufferLayout>();
        if offset % size != 0 {
            return None;
        }
        let index = u32::try_from(offset / size).ok()?;
        self.buffer_view_at(index)
    }
}

impl<'a> BufferLayoutView<'a> {
    /// The view of the target buffer at `index` among `bind`'s target buffers: the Vulkan
    /// layout it parallels with the target's numbers; `None` when a record is out of range.
    pub(crate) fn of_target(bind: BindView<'a>, index: u32) -> Option<BufferLayoutView<'a>> {
        let target = bind.target_buffers().get(index as usize)?;
        let vulkan = bind.buffer_view_at(target.buffer_layout)?;
        let first = target.first_member as usize;
        let members = bind
            .target_members()
            .get(first..first.checked_add(target.member_count as usize)?)?;
        Some(BufferLayoutView {
            target: Some((index, target, members)),
            ..vulkan
        })
    }

    /// The Vulkan layout record (name, kind, and for the Vulkan view size, alignment,
    /// stride). For a further target's layout ([`Self::target_buffer`]) the size and member
    /// numbers are the target's: read them from [`Self::size`] and [`Self::target_members`].
    #[must_use]
    pub fn record(&self) -> &'a BufferLayout {
        self.record
    }

    /// The further target's layout record (HLSL, Metal) this view fills by, or `None` for
    /// the Vulkan view's own layout.
    #[must_use]
    pub fn target_buffer(&self) -> Option<&'a TargetBuffer> {
        self.target.map(|(_, t, _)| t)
    }

    /// The further target's members, parallel to [`Self::members`] (member `k` of one is
    /// member `k` of the other); empty for the Vulkan view's own layout.
    #[must_use]
    pub fn target_members(&self) -> &'a [TargetMember] {
        self.target.map_or(&[], |(_, _, m)| m)
    }

    /// Where member `index` (among all buffer members), `m`, lies in this layout.
    fn place(&self, index: u32, m: &BufferMember) -> Option<Place> {
        match self.target {
            None => Some(Place {
                offset: m.offset,
                array_stride: m.array_stride,
                matrix_stride: m.matrix_stride,
                matrix_layout: m.matrix_layout,
            }),
            Some((_, _, members)) => {
                let k = index.checked_sub(self.record.first_member)?;
                let t = members.get(k as usize)?;
                Some(Place {
                    offset: t.offset,
                    array_stride: t.array_stride,
                    matrix_stride: t.matrix_stride,
                    matrix_layout: t.matrix_layout,
                })
            }
        }
    }

    /// The target buffer's index, [`ABSENT`] for the Vulkan view's own layout.
    fn target_index(&self) -> u32 {
        self.target.map_or(ABSENT, |(i, _, _)| i)
    }

    /// The layout's index in [`BindView::buffer_layouts`].
    #[must_use]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The buffer's name (the owning parameter's path; empty for the global uniform buffer).
    #[must_use]
    pub fn name(&self) -> &'a str {
        self.bind.string(self.record.name)
    }

    /// Size in bytes (of one element, for a structured buffer), on the layout's target.
    #[must_use]
    pub fn size(&self) -> u32 {
        self.target.map_or(self.record.size, |(_, t, _)| t.size)
    }

    /// The members, flattened in pre-order ([`BindView::members`]).
    #[must_use]
    pub fn members(&self) -> &'a [BufferMember] {
        self.bind.members(self.record)
    }

    /// A zeroed buffer of [`Self::size`] bytes to fill (allocates it): at most
    /// [`MAX_BUFFER_SIZE`](slangpack_format::limits::MAX_BUFFER_SIZE) (256 MiB), the load's
    /// bound on every layout's size.
    #[must_use]
    pub fn zeroed(&self) -> Vec<u8> {
        let size = self.size().min(slangpack_format::limits::MAX_BUFFER_SIZE);
        vec![0; size as usize]
    }

    /// A writer filling `bytes` by member path, from its first byte (one element of a
    /// structured buffer: pass `&mut bytes[i * stride..]`). Every write is checked against
    /// `bytes`' length, so a slice shorter than the layout still takes the members that fit.
    #[must_use]
    pub fn writer<'b>(&self, bytes: &'b mut [u8]) -> BufferWriter<'a, 'b> {
        BufferWriter {
            layout: *self,
            bytes,
        }
    }

    /// Resolves `path` once into a handle for values of type `T`, checking that the member
    /// takes a `T` (scalar type, component count, matrix shape): writing through it
    /// ([`BufferWriter::set_at`]) is a bounds check and a copy.
    ///
    /// # Errors
    /// A [`FillError`] naming `path`: [`FillErrorKind::NoSuchMember`],
    /// [`FillErrorKind::OtherBuffer`], [`FillErrorKind::BadIndex`],
    /// [`FillErrorKind::NotAnArray`], [`FillErrorKind::NeedsIndex`],
    /// [`FillErrorKind::IndexOutOfRange`], [`FillErrorKind::NotAValue`],
    /// [`FillErrorKind::WrongScalarType`], [`FillErrorKind::WrongShape`] or
    /// [`FillErrorKind::NoMatrixLayout`].
    pub fn field<T: ShaderValue>(&self, path: &str) -> Result<Field<T>, FillError> {
        let (member_index, offset) = self.locate(path)?;
        let m = self
            .bind
            .all_members()
            .get(member_index as usize)
            .ok_or_else(|| FillError::new(path, FillErrorKind::NoSuchMember))?;
        let kind = m.kind();
        let is_value = matches!(kind, TypeKind::Scalar | TypeKind::Vector | TypeKind::Matrix);
        if !is_value {
            return Err(FillError::new(path, FillErrorKind::NotAValue { kind }));
        }
        let scalar = m.scalar();
        if scalar != T::Scalar::TYPE {
            return Err(FillError::new(
                path,
                FillErrorKind::WrongScalarType {
                    expected: scalar,
                    found: T::Scalar::TYPE,
                },
            ));
        }
        let is_matrix = kind == TypeKind::Matrix;
        let (rows, columns) = (m.rows.max(1), m.columns.max(1));
        // A scalar member takes a scalar; a vector member an array of its length; a matrix an
        // array of its rows.
        let fits = match (is_matrix, T::MATRIX) {
            (true, true) => (rows, columns) == (T::ROWS, T::COLUMNS),
            (false, false) => rows == 1 && columns == T::COLUMNS,
            _ => false,
        };
        if !fits {
            return Err(FillError::new(
                path,
                FillErrorKind::WrongShape {
                    expected: Shape::of_member(kind, rows, columns),
                    found: Shape::of::<T>(),
                },
            ));
        }
        let size = T::Scalar::SIZE as u32;
        let place = self
            .place(member_index, m)
            .ok_or_else(|| FillError::new(path, FillErrorKind::NoSuchMember))?;
        // Bytes between consecutive rows and between consecutive columns.
        let (row_step, column_step) = if is_matrix {
            let buffer_mode = self
                .target
                .map_or(self.record.matrix_layout, |(_, t, _)| t.matrix_layout);
            let mode = match MatrixLayout::from_raw(place.matrix_layout) {
                MatrixLayout::Unspecified => MatrixLayout::from_raw(buffer_mode),
                mode => mode,
            };
            let stride = place.matrix_stride;
            match mode {
                MatrixLayout::RowMajor if stride >= columns * size => (stride, size),
                MatrixLayout::ColumnMajor if stride >= rows * size => (size, stride),
                _ => return Err(FillError::new(path, FillErrorKind::NoMatrixLayout)),
            }
        } else {
            (0, size)
        };
        Ok(Field {
            offset,
            layout: self.index,
            target: self.target_index(),
            member: member_index,
            row_step,
            column_step,
            value: PhantomData,
        })
    }

    /// The member `path` names and the byte offset of the value it names (its element, when
    /// indexed), from the start of the buffer.
    fn locate(&self, path: &str) -> Result<(u32, u64), FillError> {
        let fail = |kind| FillError::new(path, kind);
        let head_end = path.find('[').unwrap_or(path.len());
        let (head, mut rest) = path.split_at(head_end);
        let handle = self
            .bind
            .member_handle(head)
            .ok_or_else(|| fail(FillErrorKind::NoSuchMember))?;
        if handle.layout_index() != self.index {
            let other = self
                .bind
                .buffer_layout(handle.layout_index())
                .map_or("", |l| self.bind.string(l.name));
            return Err(fail(FillErrorKind::OtherBuffer {
                buffer: other.to_owned(),
            }));
        }
        let all = self.bind.all_members();
        let mut index = handle.member_index();
        let mut m = all
            .get(index as usize)
            .ok_or_else(|| fail(FillErrorKind::NoSuchMember))?;
        let place = |index: u32, m: &BufferMember| {
            self.place(index, m)
                .ok_or_else(|| fail(FillErrorKind::NoSuchMember))
        };
        let mut at = place(index, m)?;
        // The member's offset; element-relative members add the start of their element.
        let mut offset = u64::from(at.offset);
        let mut indexed = false;
        while let Some(after) = rest.strip_prefix('[') {
            if m.array_count == 0 || indexed {
                return Err(fail(FillErrorKind::NotAnArray));
            }
            let close = after
                .find(']')
                .ok_or_else(|| fail(FillErrorKind::BadIndex))?;
            let digits = after.get(..close).unwrap_or_default();
            let element: u64 = if digits.bytes().all(|b| b.is_ascii_digit()) {
                digits.parse().ok()
            } else {
                None
            }
            .ok_or_else(|| fail(FillErrorKind::BadIndex))?;
            if m.array_count != ARRAY_UNBOUNDED && element >= u64::from(m.array_count) {
                return Err(fail(FillErrorKind::IndexOutOfRange {
                    index: element,
                    count: m.array_count,
                }));
            }
            let element_start = element
                .checked_mul(u64::from(at.array_stride))
                .and_then(|o| o.checked_add(offset))
                .ok_or_else(|| {
                    fail(FillErrorKind::IndexOutOfRange {
                        index: element,
                        count: m.array_count,
                    })
                })?;
            rest = after.get(close + 1..).unwrap_or_default();
            let Some(tail) = rest.strip_prefix('.') else {
                // The element itself (`weights[3]`), or more indexes (refused above).
                offset = element_start;
                indexed = true;
                continue;
            };
            // A member of the element: the children of `m` whose path is `m.path[].<name>`.
            let name_end = tail.find('[').unwrap_or(tail.len());
            let (name, next) = tail.split_at(name_end);
            let array_path = self.bind.string(m.path);
            let parent = index;
            let (child_index, child) = all
                .iter()
                .enumerate()
                .skip(parent as usize + 1)
                .take_while(|(_, c)| c.flags & MEMBER_ELEMENT_RELATIVE != 0)
                .find(|(_, c)| {
                    let p = self.bind.string(c.path);
                    p.strip_prefix(array_path)
                        .and_then(|p| p.strip_prefix("[]."))
                        .is_some_and(|p| p == name)
                })
                .ok_or_else(|| fail(FillErrorKind::NoSuchMember))?;
            index = child_index as u32;
            m = child;
            at = place(index, m)?;
            offset = element_start
                .checked_add(u64::from(at.offset))
                .ok_or_else(|| fail(FillErrorKind::NoSuchMember))?;
            indexed = false;
            rest = next;
        }
        if !rest.is_empty() {
            return Err(fail(FillErrorKind::BadIndex));
        }
        if m.array_count != 0 && !indexed {
            return Err(fail(FillErrorKind::NeedsIndex {
                count: m.array_count,
            }));
        }
        Ok((index, offset))
    }

    /// The path of member `index` as the bind view spells it (`gParams.lights[].dir`), for
    /// errors through a [`Field`].
    #[cold]
    fn member_path(&self, layout: u32, index: u32) -> String {
        let buffer = self
            .bind
            .buffer_layout(layout)
            .map_or("", |l| self.bind.string(l.name));
        let member = self
            .bind
            .all_members()
            .get(index as usize)
            .map_or("", |m| self.bind.string(m.path));
        match buffer {
            "" => member.to_owned(),
            name => format!("{name}.{member}"),
        }
    }
}

/// A value resolved once ([`BufferLayoutView::field`]): where a `T` goes in the buffer, type
/// checked. Small and `Copy`; valid for the layout it came from ([`BufferWriter::set_at`]
/// refuses another layout's).
pub struct Field<T> {
    offset: u64,
    layout: u32,
    /// The target buffer the offset is for, [`ABSENT`] for the Vulkan layout.
    target: u32,
    member: u32,
    /// Bytes between consecutive rows of a matrix (0 for scalars and vectors).
    row_step: u32,
    /// Bytes between consecutive components of a vector or columns of a matrix row.
    column_step: u32,
    value: PhantomData<fn(T)>,
}

impl<T> Clone for Field<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Field<T> {}

impl<T> fmt::Debug for Field<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Field")
            .field("offset", &self.offset)
            .field("layout", &self.layout)
            .field("member", &self.member)
            .finish()
    }
}

impl<T> Field<T> {
    /// Byte offset of the value from the start of the buffer.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The member's index among all buffer members ([`crate::ReflectionView::buffer_members`]).
    #[must_use]
    pub fn member_index(&self) -> u32 {
        self.member
    }
}

/// Fills a buffer's bytes by member path ([`BufferLayoutView::writer`]).
#[derive(Debug)]
pub struct BufferWriter<'a, 'b> {
    layout: BufferLayoutView<'a>,
    bytes: &'b mut [u8],
}

impl<'a, 'b> BufferWriter<'a, 'b> {
    /// Writes `value` at `path` (`gParams.lights[1].dir`), checked against the member's type
    /// and the buffer's length. Allocates nothing unless it fails.
    ///
    /// # Errors
    /// Those of [`BufferLayoutView::field`], and [`FillErrorKind::OutOfBounds`] when the value
    /// would pass the end of the bytes; each names `path`.
    pub fn set<T: ShaderValue>(&mut self, path: &str, value: T) -> Result<&mut Self, FillError> {
        let field = self.layout.field::<T>(path)?;
        match self.put(field, value) {
            Ok(()) => Ok(self),
            Err(kind) => Err(FillError::new(path, kind)),
        }
    }

    /// Writes `value` through a handle resolved once: a bounds check and a copy.
    ///
    /// # Errors
    /// [`FillErrorKind::ForeignField`] for a handle of another layout,
    /// [`FillErrorKind::OutOfBounds`] when the value would pass the end of the bytes; each
    /// names the member's path as the bind view spells it (`gParams.lights[].dir`).
    pub fn set_at<T: ShaderValue>(
        &mut self,
        field: Field<T>,
        value: T,
    ) -> Result<&mut Self, FillError> {
        if field.layout != self.layout.index || field.target != self.layout.target_index() {
            return Err(FillError::new(
                &self.layout.member_path(field.layout, field.member),
                FillErrorKind::ForeignField,
            ));
        }
        match self.put(field, value) {
            Ok(()) => Ok(self),
            Err(kind) => Err(FillError::new(
                &self.layout.member_path(field.layout, field.member),
                kind,
            )),
        }
    }

    /// The bytes filled so far.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        self.bytes
    }

    /// The layout being filled.
    #[must_use]
    pub fn layout(&self) -> BufferLayoutView<'a> {
        self.layout
    }

    fn put<T: ShaderValue>(&mut self, field: Field<T>, value: T) -> Result<(), FillErrorKind> {
        let size = T::Scalar::SIZE as u64;
        let rows = u64::from(T::ROWS);
        let columns = u64::from(T::COLUMNS);
        // The last byte written: the last column of the last row.
        let extent = rows.saturating_sub(1) * u64::from(field.row_step)
            + columns.saturating_sub(1) * u64::from(field.column_step)
            + size;
        let end = field.offset.saturating_add(extent);
        let len = self.bytes.len();
        if end > len as u64 {
            return Err(FillErrorKind::OutOfBounds { end, len });
        }
        // In bounds: `offset + extent <= len`, and every place below is at most that.
        let base = field.offset as usize;
        for row in 0..T::ROWS {
            for column in 0..T::COLUMNS {
                let at = base
                    + row as usize * field.row_step as usize
                    + column as usize * field.column_step as usize;
                if let Some(out) = self.bytes.get_mut(at..at + T::Scalar::SIZE) {
                    value.component(row, column).put(out);
                }
            }
        }
        Ok(())
    }
}

/// Why a buffer could not be filled as asked: the path (or member) and what was wrong. Owns
/// its strings, so `?` takes it into `Box<dyn Error>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillError {
    path: String,
    kind: FillErrorKind,
}

impl FillError {
    #[cold]
    pub(crate) fn new(path: &str, kind: FillErrorKind) -> FillError {
        FillError {
            path: path.to_owned(),
            kind,
        }
    }

    /// The path as given (or, through a [`Field`], the member's path).
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was wrong.
    #[must_use]
    pub fn kind(&self) -> &FillErrorKind {
        &self.kind
    }
}

/// What was wrong with a fill ([`FillError::kind`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FillErrorKind {
    /// No member has this path (members inside arrays are reached through an index:
    /// `lights[0].dir`).
    NoSuchMember,
    /// The member belongs to another buffer layout, named here.
    OtherBuffer {
        /// The name of the buffer the path belongs to.
        buffer: String,
    },
    /// An index that is not a decimal number in brackets, or text after the path.
    BadIndex,
    /// An index on a member that is not an array (or a second index: arrays of arrays are
    /// not addressed element by element).
    NotAnArray,
    /// The member is an array: give an element (`weights[0]`).
    NeedsIndex {
        /// The array's element count ([`ARRAY_UNBOUNDED`] for a runtime-sized array).
        count: u32,
    },
    /// The index is past the array's end.
    IndexOutOfRange {
        /// The index given.
        index: u64,
        /// The array's element count.
        count: u32,
    },
    /// The member holds no scalar, vector or matrix (a struct: set its members).
    NotAValue {
        /// The member's type kind.
        kind: TypeKind,
    },
    /// The member's scalar type is not the value's.
    WrongScalarType {
        /// The member's scalar type.
        expected: ScalarType,
        /// The value's.
        found: ScalarType,
    },
    /// The member's component count or matrix shape is not the value's.
    WrongShape {
        /// The member's.
        expected: Shape,
        /// The value's.
        found: Shape,
    },
    /// A matrix whose layout gives no row-major or column-major placement (no matrix layout
    /// recorded, or a matrix stride shorter than one row or column).
    NoMatrixLayout,
    /// The value would end past the bytes being filled.
    OutOfBounds {
        /// The byte just past the value.
        end: u64,
        /// The length of the bytes.
        len: usize,
    },
    /// A [`Field`] of another buffer layout.
    ForeignField,
    /// The binding is a buffer, but the package holds no member layout for its target
    /// (HLSL, Metal: [`crate::TargetBufferLayout::NotProvided`]).
    LayoutNotProvided {
        /// The target.
        target: Target,
    },
    /// The binding is no buffer (a texture, a sampler).
    NotABuffer,
    /// The target has no binding at this path.
    NoSuchBinding,
}

/// The shape of a value: a scalar, a vector of `columns` components or a `rows` x `columns`
/// matrix ([`FillErrorKind::WrongShape`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Rows (1 for scalars and vectors).
    pub rows: u32,
    /// Columns (components of a vector; 1 for a scalar).
    pub columns: u32,
    /// Whether it is a matrix.
    pub matrix: bool,
}

impl Shape {
    fn of<T: ShaderValue>() -> Shape {
        Shape {
            rows: T::ROWS,
            columns: T::COLUMNS,
            matrix: T::MATRIX,
        }
    }

    fn of_member(kind: TypeKind, rows: u32, columns: u32) -> Shape {
        Shape {
            rows,
            columns,
            matrix: kind == TypeKind::Matrix,
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.matrix, self.columns) {
            (true, _) => write!(f, "a {}x{} matrix", self.rows, self.columns),
            (false, 1) => f.write_str("a scalar"),
            (false, n) => write!(f, "a vector of {n} components"),
        }
    }
}

impl fmt::Display for FillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = &self.path;
        match &self.kind {
            FillErrorKind::NoSuchMember => write!(f, "`{path}`: no such buffer member"),
            FillErrorKind::OtherBuffer { buffer } => {
                write!(f, "`{path}`: a member of buffer `{buffer}`, not this one")
            }
            FillErrorKind::BadIndex => write!(f, "`{path}`: not a member path with [index]es"),
            FillErrorKind::NotAnArray => write!(f, "`{path}`: indexes a member that is no array"),
            FillErrorKind::NeedsIndex { count } if *count == ARRAY_UNBOUNDED => {
                write!(f, "`{path}`: a runtime-sized array; give an element")
            }
            FillErrorKind::NeedsIndex { count } => {
                write!(f, "`{path}`: an array of {count}; give an element")
            }
            FillErrorKind::IndexOutOfRange { index, count } => write!(
                f,
                "`{path}`: index {index} out of range (the array has {count} elements)"
            ),
            FillErrorKind::NotAValue { kind } => write!(
                f,
                "`{path}`: a {kind:?}, not a scalar, vector or matrix; set its members"
            ),
            FillErrorKind::WrongScalarType { expected, found } => {
                write!(f, "`{path}`: holds {expected:?}, not {found:?}")
            }
            FillErrorKind::WrongShape { expected, found } => {
                write!(f, "`{path}`: is {expected}, not {found}")
            }
            FillErrorKind::NoMatrixLayout => write!(
                f,
                "`{path}`: a matrix without a row- or column-major layout and stride"
            ),
            FillErrorKind::OutOfBounds { end, len } => write!(
                f,
                "`{path}`: ends at byte {end}, past the {len} bytes being filled"
            ),
            FillErrorKind::ForeignField => {
                write!(f, "`{path}`: a field handle of another buffer layout")
            }
            FillErrorKind::LayoutNotProvided { target } => write!(
                f,
                "`{path}`: the package holds no member layout for {} buffers",
                target.name()
            ),
            FillErrorKind::NotABuffer => write!(f, "`{path}`: not a buffer binding"),
            FillErrorKind::NoSuchBinding => write!(f, "`{path}`: no such binding"),
        }
    }
}

impl std::error::Error for FillError {}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that is one shader scalar in a buffer: `f32` (`float`), `f64`, `i32`, `u32`,
/// `i64`, `u64`, `i16`, `u16`, `i8`, `u8`, [`Half`] (`half`), and `bool` (4 bytes, 0 or 1, as
/// Slang lays a `bool` out in a buffer).
pub trait Scalar: Copy + sealed::Sealed {
    /// The shader's scalar type.
    const TYPE: ScalarType;
    /// Bytes in the buffer.
    const SIZE: usize;
    /// Writes the little-endian bytes into `out` (`SIZE` bytes long).
    fn put(self, out: &mut [u8]);
}

/// A value a buffer member takes: a [`Scalar`], a vector `[S; N]`, or a matrix
/// `[[S; COLUMNS]; ROWS]` given row by row (`value[row][column]`, as Slang indexes `m[r][c]`),
/// whatever the member's matrix layout.
pub trait ShaderValue: Copy + sealed::Sealed {
    /// The scalar type of every component.
    type Scalar: Scalar;
    /// Rows: 1 for scalars and vectors.
    const ROWS: u32;
    /// Columns: a vector's components, 1 for a scalar.
    const COLUMNS: u32;
    /// Whether it is a matrix (a vector is not a 1 x N matrix).
    const MATRIX: bool;
    /// The component at `row`, `column`.
    fn component(&self, row: u32, column: u32) -> Self::Scalar;
}

macro_rules! scalars {
    ($($ty:ty => $scalar:ident),* $(,)?) => {$(
        impl sealed::Sealed for $ty {}
        impl Scalar for $ty {
            const TYPE: ScalarType = ScalarType::$scalar;
            const SIZE: usize = size_of::<$ty>();
            #[inline]
            fn put(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
        values!($ty);
    )*};
}

macro_rules! values {
    ($ty:ty) => {
        impl ShaderValue for $ty {
            type Scalar = $ty;
            const ROWS: u32 = 1;
            const COLUMNS: u32 = 1;
            const MATRIX: bool = false;
            #[inline]
            fn component(&self, _: u32, _: u32) -> $ty {
                *self
            }
        }
        impl<const N: usize> sealed::Sealed for [$ty; N] {}
        impl<const N: usize> ShaderValue for [$ty; N] {
            type Scalar = $ty;
            const ROWS: u32 = 1;
            const COLUMNS: u32 = N as u32;
            const MATRIX: bool = false;
            #[inline]
            fn component(&self, _: u32, column: u32) -> $ty {
                <[$ty]>::get(self, column as usize)
                    .copied()
                    .unwrap_or_default()
            }
        }
        impl<const C: usize, const R: usize> sealed::Sealed for [[$ty; C]; R] {}
        impl<const C: usize, const R: usize> ShaderValue for [[$ty; C]; R] {
            type Scalar = $ty;
            const ROWS: u32 = R as u32;
            const COLUMNS: u32 = C as u32;
            const MATRIX: bool = true;
            #[inline]
            fn component(&self, row: u32, column: u32) -> $ty {
                <[[$ty; C]]>::get(self, row as usize)
                    .and_then(|r| r.get(column as usize))
                    .copied()
                    .unwrap_or_default()
            }
        }
    };
}

scalars! {
    f32 => Float32,
    f64 => Float64,
    i32 => Int32,
    u32 => UInt32,
    i64 => Int64,
    u64 => UInt64,
    i16 => Int16,
    u16 => UInt16,
    i8 => Int8,
    u8 => UInt8,
}

/// The bits of an IEEE 754 binary16 value, for a Slang `half` member (Rust has no stable
/// `f16`; the `half` crate's `f16::to_bits` gives them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Half(pub u16);

impl sealed::Sealed for Half {}
impl Scalar for Half {
    const TYPE: ScalarType = ScalarType::Float16;
    const SIZE: usize = 2;
    #[inline]
    fn put(self, out: &mut [u8]) {
        out.copy_from_slice(&self.0.to_le_bytes());
    }
}
values!(Half);

impl sealed::Sealed for bool {}
impl Scalar for bool {
    const TYPE: ScalarType = ScalarType::Bool;
    const SIZE: usize = 4;
    #[inline]
    fn put(self, out: &mut [u8]) {
        out.copy_from_slice(&u32::from(self).to_le_bytes());
    }
}
values!(bool);
