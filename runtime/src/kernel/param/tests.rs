use super::*;
use chevron_cuda_rules::ptx::Expected;

type Scale = f32;
type Count = u64;
type DevBuf = CudaSlice<f32>;
type BufRef<'a> = &'a CudaSlice<u16>;
use cudarc::driver::CudaSlice as DeviceBuffer;

#[repr(C)]
#[derive(Clone, Copy)]
struct Affine {
    _scale: f32,
    _offset: i32,
    _bias: f64,
}
unsafe impl DeviceRepr for Affine {}

/// What a `#[kernel]` const block computes for a parameter of type `$ty`.
macro_rules! form_of {
    ($ty:ty) => {{
        #[allow(unused_imports)]
        use NotScalar as _;
        form(
            Of::<$ty>::SCALAR,
            Of::<$ty>::CLASS,
            Of::<$ty>::ELEM,
            param::<$ty, _>().form,
        )
    }};
}

const fn same(a: ParamForm, b: ParamForm) -> bool {
    let expected = match (a.expected, b.expected) {
        (Expected::Int(x), Expected::Int(y)) | (Expected::Float(x), Expected::Float(y)) => x == y,
        (Expected::Bool, Expected::Bool) | (Expected::Pointer, Expected::Pointer) => true,
        (Expected::Value(Some(x)), Expected::Value(Some(y))) => x == y,
        _ => false,
    };
    expected && a.writes == b.writes && a.element_bytes == b.element_bytes
}

// Aliases, paths and renamed imports resolve as rustc resolves them, in const code.
const _: () = {
    assert!(same(form_of!(Scale), ParamForm::float(32)));
    assert!(same(form_of!(std::primitive::f32), ParamForm::float(32)));
    assert!(same(form_of!(core::primitive::u64), ParamForm::int(64)));
    assert!(same(form_of!(Count), ParamForm::int(64)));
    assert!(same(form_of!(usize), ParamForm::int(64)));
    assert!(same(form_of!(bool), ParamForm::bool()));
    assert!(same(form_of!(i8), ParamForm::int(8)));
    assert!(same(form_of!(Affine), ParamForm::value(16)));
    assert!(same(form_of!([u32; 3]), ParamForm::value(12)));
    assert!(same(form_of!(&DevBuf), ParamForm::buffer(4, false)));
    assert!(same(form_of!(&mut DevBuf), ParamForm::buffer(4, true)));
    assert!(same(
        form_of!(&DeviceBuffer<f64>),
        ParamForm::buffer(8, false)
    ));
    assert!(same(form_of!(BufRef<'_>), ParamForm::buffer(2, false)));
    assert!(same(
        form_of!(&CudaView<'_, u8>),
        ParamForm::buffer(1, false)
    ));
    assert!(same(
        form_of!(&mut CudaViewMut<'_, i64>),
        ParamForm::buffer(8, true)
    ));
    assert!(same(
        form_of!(&CudaViewMut<'_, i64>),
        ParamForm::buffer(8, false)
    ));
};

#[cfg(feature = "f16")]
const _: () = assert!(same(form_of!(half::f16), ParamForm::value(2)));

const fn class_is(form: ParamForm, class: Class) -> bool {
    match (form.class, class) {
        (Class::Unknown, Class::Unknown) | (Class::Void, Class::Void) => true,
        (Class::Num(a), Class::Num(b)) => num_is(a, b),
        (Class::Vector(a, n), Class::Vector(b, m)) => n == m && num_is(a, b),
        _ => false,
    }
}

const fn num_is(a: Num, b: Num) -> bool {
    match (a, b) {
        (Num::Int { bits: x, signed: s }, Num::Int { bits: y, signed: t }) => x == y && s == t,
        (Num::Float(x), Num::Float(y)) => x == y,
        (Num::Bool, Num::Bool) | (Num::F16, Num::F16) | (Num::BF16, Num::BF16) => true,
        (Num::Char, Num::Char) => true,
        _ => false,
    }
}

const I32: Class = Class::Num(Num::Int {
    bits: 32,
    signed: true,
});
const U32: Class = Class::Num(Num::Int {
    bits: 32,
    signed: false,
});
const F32: Class = Class::Num(Num::Float(32));

// The C++ class, through aliases too: of a value, and of a buffer's elements.
type Signed = i32;
type IntBuf = CudaSlice<Signed>;
const _: () = {
    assert!(class_is(form_of!(Signed), I32));
    assert!(class_is(form_of!(u32), U32));
    assert!(class_is(form_of!(Scale), F32));
    assert!(class_is(form_of!(&IntBuf), I32));
    assert!(class_is(form_of!(&mut DevBuf), F32));
    assert!(class_is(
        form_of!(BufRef<'_>),
        Class::Num(Num::Int {
            bits: 16,
            signed: false
        })
    ));
    assert!(class_is(form_of!(&CudaView<'_, u32>), U32));
    assert!(class_is(
        form_of!(&mut CudaSlice<crate::kernel::vec::Float4>),
        Class::Vector(Num::Float(32), 4)
    ));
    assert!(class_is(form_of!(Affine), Class::Unknown));
    assert!(class_is(form_of!(&CudaSlice<Affine>), Class::Unknown));
    // Layouts: a value's, and an element's.
    assert!(form_of!(Affine).align == 8 && form_of!(Affine).bytes == 16);
    assert!(form_of!(crate::kernel::vec::Float4).align == 16);
    assert!(form_of!(&CudaSlice<crate::kernel::vec::Float3>).bytes == 12);
    assert!(form_of!(&CudaSlice<crate::kernel::vec::Float3>).align == 4);
    assert!(form_of!(u64).bytes == 8 && form_of!(u8).align == 1);
};

#[cfg(feature = "f16")]
const _: () = {
    assert!(class_is(form_of!(half::f16), Class::Num(Num::F16)));
    assert!(class_is(
        form_of!(&CudaSlice<half::bf16>),
        Class::Num(Num::BF16)
    ));
};

// The form differs from a float's exactly where the bug was: `Scale` for `.u32`.
const _: () = assert!(!mismatch(form_of!(Scale), PtxType::U32, None, "", "").is_empty());
const _: () = assert!(mismatch(form_of!(Scale), PtxType::F32, None, "", "").is_empty());
const _: () = assert!(!mismatch(form_of!(Count), PtxType::F64, None, "", "").is_empty());

/// `#[kernel]` reads the numbers of `SPELLED_NUMBERS` from their spelling instead of asking
/// rustc: each of its forms must be what the const block computes through these impls, by
/// value and as every device buffer, with and without the C++ classes.
#[test]
fn spelled_numbers_have_the_forms_their_types_give() {
    use chevron_cuda_rules::param::SPELLED_NUMBERS;
    use cudarc::driver::{CudaView, CudaViewMut};
    macro_rules! agree {
        ($($t:ident)*) => {{
            let mut seen = Vec::new();
            $(
                let n = SPELLED_NUMBERS
                    .iter()
                    .find(|n| n.name == stringify!($t))
                    .expect(stringify!($t));
                let (size, align) = (core::mem::size_of::<$t>(), core::mem::align_of::<$t>());
                assert_eq!((n.bytes, n.bytes), (size as u64, align as u64), "{}", n.name);
                assert_eq!(n.value_form(true), form_of!($t), "{}", n.name);
                assert_eq!(
                    n.value_form(false),
                    form(Of::<$t>::SCALAR, None, None, param::<$t, _>().form),
                    "{}",
                    n.name
                );
                for (classes, class) in [(true, Of::<&CudaSlice<$t>>::ELEM), (false, None)] {
                    let with = |f: ParamForm| form(None, None, class, f);
                    assert_eq!(
                        n.buffer_form(false, classes),
                        with(param::<&CudaSlice<$t>, _>().form),
                        "{}",
                        n.name
                    );
                    assert_eq!(
                        n.buffer_form(true, classes),
                        with(param::<&mut CudaSlice<$t>, _>().form),
                        "{}",
                        n.name
                    );
                    assert_eq!(
                        n.buffer_form(false, classes),
                        with(param::<&CudaView<'static, $t>, _>().form),
                        "{}",
                        n.name
                    );
                    assert_eq!(
                        n.buffer_form(true, classes),
                        with(param::<&mut CudaViewMut<'static, $t>, _>().form),
                        "{}",
                        n.name
                    );
                }
                seen.push(n.name);
            )*
            seen
        }};
    }
    let seen = agree!(u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool);
    assert_eq!(seen.len(), SPELLED_NUMBERS.len());
}
