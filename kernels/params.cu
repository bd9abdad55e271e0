// all_types: takes one parameter of every scalar type and writes each value,
// converted to double, to out[0..11] (thread 0 only). Used to prove every
// scalar type is marshalled with the right width and arrives intact.
extern "C" __global__ void all_types(unsigned char u8v, signed char i8v,
                                     unsigned short u16v, short i16v,
                                     unsigned int u32v, int i32v,
                                     unsigned long long u64v, long long i64v,
                                     float f32v, double f64v, bool bv,
                                     double* out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = (double)u8v;
        out[1] = (double)i8v;
        out[2] = (double)u16v;
        out[3] = (double)i16v;
        out[4] = (double)u32v;
        out[5] = (double)i32v;
        out[6] = (double)u64v;
        out[7] = (double)i64v;
        out[8] = (double)f32v;
        out[9] = f64v;
        out[10] = bv ? 1.0 : 0.0;
    }
}
