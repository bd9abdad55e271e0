//! Template instances by any spelling that denotes them (rules/tests/fixtures/names.cu): the
//! source's, `c++filt`'s, the demangler's; `const` placement; without nvcc's `_INTERNAL_<hash>`
//! namespace of `static` functions or the anonymous namespace; an overload chosen by a
//! parameter declared through a typedef; `T**` as a buffer of `u64` device addresses.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "tu<128>")]
fn tu_source(out: &mut CudaSlice<u32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "tu<128u>")]
fn tu_cxxfilt(out: &mut CudaSlice<u32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "tu<(unsigned int)128>")]
fn tu_demangler(out: &mut CudaSlice<u32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "tl<128l>")]
fn tl(out: &mut CudaSlice<i64>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "tul<4096>")]
fn tul(out: &mut CudaSlice<u64>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "reduce4<int, 512>")]
fn reduce4_int(input: &CudaSlice<i32>, out: &mut CudaSlice<i32>, n: i32);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "tb<true>")]
fn tb_true(out: &mut CudaSlice<i32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "te<(Mode)1, (Plain)7>")]
fn te(x: &mut CudaSlice<f32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "tread<const float>")]
fn tread_const(x: &CudaSlice<f32>, out: &mut CudaSlice<f32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "pair<const half*, uint8_t>")]
fn pair(a: &CudaSlice<u64>, b: &mut CudaSlice<u8>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "unary_op_kernel<&op_abs, float>")]
fn op_abs(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
#[kernel(
    ptx = "rules/tests/fixtures/names.ptx",
    name = "unary_op_kernel<&(op_neg(float)), float>"
)]
fn op_neg(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
#[kernel(
    ptx = "rules/tests/fixtures/names.ptx",
    name = "cpy_scalar<&(void cpy_1_scalar<float, __half>(char const*, char*))>"
)]
fn cpy_f32_f16(src: &CudaSlice<u8>, dst: &mut CudaSlice<u8>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "cpy_scalar<cpy_1_scalar<float, float>>")]
fn cpy_f32_f32(src: &CudaSlice<u8>, dst: &mut CudaSlice<u8>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx")]
fn anon(x: &mut CudaSlice<f32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "over(float*, index_t)")]
fn over_index(x: &mut CudaSlice<f32>, n: u32);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "packed<float>")]
fn packed(x: &mut CudaSlice<f32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx")]
fn gather(rows: &CudaSlice<u64>, out: &mut CudaSlice<f32>);

fn main() {
    let _ = (tu_source::kernel(), tu_cxxfilt::kernel(), tu_demangler::kernel());
    let _ = (tl::kernel(), tul::kernel(), reduce4_int::kernel(), tb_true::kernel());
    let _ = (te::kernel(), tread_const::kernel(), pair::kernel(), op_abs::kernel());
    let _ = (op_neg::kernel(), cpy_f32_f16::kernel(), cpy_f32_f32::kernel(), anon::kernel());
    let _ = (over_index::kernel(), packed::kernel(), gather::kernel());
}
