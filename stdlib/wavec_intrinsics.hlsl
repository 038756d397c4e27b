// wavec's HLSL intrinsics that the WAVE ISA has no instruction for, written in
// HLSL and compiled with every kernel (docs/language.md, "Intrinsics").
// User code calls them by their HLSL names (`lerp`, `atan2`, ...); they are
// `__wavec_NAME` here so that users can never collide with them.
//
// Template lines: the block between `//@for TYPES` and `//@end` is written
// once per type of TYPES, with $T the type, $S its scalar type, $I the int
// type and $B the bool type of the same shape, and $N its component count.
// FLOATS is float..float4 (plus half..half4 with -enable-16bit-types);
// FLOAT_SHAPES adds the matrices float1x1..float4x4 (for the element-wise
// functions, which HLSL applies to matrices too); INTS, INT_SHAPES and
// UINT_SHAPES likewise; DOUBLE_SHAPES is double..double4x4 (DOUBLE_SHAPES_U
// the same with $I its uint type).

//@for FLOAT_SHAPES
$T __wavec_lerp($T a, $T b, $T s) { return a + s * (b - a); }
$T __wavec_step($T edge, $T x) { return select(x >= edge, ($T)1, ($T)0); }
$T __wavec_smoothstep($T lo, $T hi, $T x) {
    $T t = saturate((x - lo) / (hi - lo));
    return t * t * (($T)3 - ($T)2 * t);
}
// exp, log and pow go through base 2 (exp2/log2 are WAVE instructions).
$T __wavec_exp($T x) { return exp2(x * ($T)1.44269504088896341); }
$T __wavec_log($T x) { return log2(x) * ($T)0.693147180559945309; }
$T __wavec_log10($T x) { return log2(x) * ($T)0.301029995663981195; }
$T __wavec_pow($T x, $T y) { return exp2(y * log2(x)); }
$T __wavec_ldexp($T x, $T e) { return x * exp2(e); }
$T __wavec_tan($T x) { return sin(x) / cos(x); }
$T __wavec_sinh($T x) { return (__wavec_exp(x) - __wavec_exp(-x)) * ($T)0.5; }
$T __wavec_cosh($T x) { return (__wavec_exp(x) + __wavec_exp(-x)) * ($T)0.5; }
// 1 - 2 / (e^2x + 1) stays finite for large |x| (e^2x overflows to inf: 1).
$T __wavec_tanh($T x) { return ($T)1 - ($T)2 / (__wavec_exp(($T)2 * x) + ($T)1); }
$T __wavec_degrees($T x) { return x * ($T)57.2957795130823209; }
$T __wavec_radians($T x) { return x * ($T)0.0174532925199432958; }
$I __wavec_sign($T x) { return select(x > ($T)0, ($I)1, select(x < ($T)0, ($I)-1, ($I)0)); }
// atan: |x| > 1 reflects through 1/x; two half-angle steps
// (atan x = 2 atan(x / (1 + sqrt(1 + x^2)))) bring |x| under tan(pi/16),
// where the odd Taylor series to x^13 is accurate to about 1e-10.
$T __wavec_atan($T x) {
    $T a = abs(x);
    $B big = a > ($T)1;
    $T r = select(big, ($T)1 / a, a);
    r = r / (($T)1 + sqrt(($T)1 + r * r));
    r = r / (($T)1 + sqrt(($T)1 + r * r));
    $T r2 = r * r;
    $T p = ($T)(1.0 / 13.0);
    p = p * r2 - ($T)(1.0 / 11.0);
    p = p * r2 + ($T)(1.0 / 9.0);
    p = p * r2 - ($T)(1.0 / 7.0);
    p = p * r2 + ($T)(1.0 / 5.0);
    p = p * r2 - ($T)(1.0 / 3.0);
    p = p * r2 + ($T)1;
    $T t = ($T)4 * r * p;
    t = select(big, ($T)1.57079632679489662 - t, t);
    return select(x < ($T)0, -t, t);
}
$T __wavec_atan2($T y, $T x) {
    $T t = __wavec_atan(y / x);
    $T pi = ($T)3.14159265358979324;
    $T half_pi = ($T)1.57079632679489662;
    $T r = select(x > ($T)0, t, select(y >= ($T)0, t + pi, t - pi));
    // x == 0: +-pi/2 (0 when y is 0 too).
    return select(x == ($T)0, select(y > ($T)0, half_pi, select(y < ($T)0, -half_pi, ($T)0)), r);
}
$T __wavec_asin($T x) { return __wavec_atan2(x, sqrt(($T)1 - x * x)); }
$T __wavec_acos($T x) { return __wavec_atan2(sqrt(($T)1 - x * x), x); }
void __wavec_sincos($T x, out $T s, out $T c) { s = sin(x); c = cos(x); }
//@end

//@for FLOATS
$S __wavec_length($T v) { return sqrt(dot(v, v)); }
$S __wavec_distance($T a, $T b) { return __wavec_length(a - b); }
$T __wavec_normalize($T v) { return v * rsqrt(dot(v, v)); }
$T __wavec_reflect($T i, $T n) { return i - ($T)2 * dot(n, i) * n; }
$T __wavec_refract($T i, $T n, $S eta) {
    $S c = dot(n, i);
    $S k = ($S)1 - eta * eta * (($S)1 - c * c);
    return k < ($S)0 ? ($T)0 : eta * i - (eta * c + sqrt(k)) * n;
}
$T __wavec_faceforward($T n, $T i, $T ng) { return -n * ($S)__wavec_sign(dot(i, ng)); }
//@end

//@for INT_SHAPES
$I __wavec_sign($T x) { return select(x > ($T)0, ($I)1, select(x < ($T)0, ($I)-1, ($I)0)); }
//@end

//@for UINT_SHAPES
$I __wavec_sign($T x) { return select(x > ($T)0, ($I)1, ($I)0); }
//@end

//@for DOUBLE_SHAPES
$I __wavec_sign($T x) { return select(x > ($T)0, ($I)1, select(x < ($T)0, ($I)-1, ($I)0)); }
//@end

// asuint(d, out lo, out hi): the words of doubles ($I is uint of $T's shape).
//@for DOUBLE_SHAPES_U
void __wavec_asuint($T d, out $I lo, out $I hi) { lo = __wavec_lo32(d); hi = __wavec_hi32(d); }
//@end

//@for FLOAT3
$T __wavec_cross($T a, $T b) { return a.yzx * b.zxy - a.zxy * b.yzx; }
//@end

//@for FLOAT_SCALARS
$S __wavec_determinant(matrix<$S, 1, 1> m) { return m._m00; }
$S __wavec_determinant(matrix<$S, 2, 2> m) { return m._m00 * m._m11 - m._m01 * m._m10; }
$S __wavec_determinant(matrix<$S, 3, 3> m) {
    return m._m00 * (m._m11 * m._m22 - m._m12 * m._m21)
         - m._m01 * (m._m10 * m._m22 - m._m12 * m._m20)
         + m._m02 * (m._m10 * m._m21 - m._m11 * m._m20);
}
$S __wavec_determinant(matrix<$S, 4, 4> m) {
    // Laplace expansion along the first row, with the 2x2 minors of the last two rows.
    $S s0 = m._m20 * m._m31 - m._m21 * m._m30;
    $S s1 = m._m20 * m._m32 - m._m22 * m._m30;
    $S s2 = m._m20 * m._m33 - m._m23 * m._m30;
    $S s3 = m._m21 * m._m32 - m._m22 * m._m31;
    $S s4 = m._m21 * m._m33 - m._m23 * m._m31;
    $S s5 = m._m22 * m._m33 - m._m23 * m._m32;
    return m._m00 * (m._m11 * s5 - m._m12 * s4 + m._m13 * s3)
         - m._m01 * (m._m10 * s5 - m._m12 * s2 + m._m13 * s1)
         + m._m02 * (m._m10 * s4 - m._m11 * s2 + m._m13 * s0)
         - m._m03 * (m._m10 * s3 - m._m11 * s1 + m._m12 * s0);
}
//@end

// Packed and integer helpers of shader model 6.4 and later.
// dot2add: half products are exact in float; the sum is acc + x + y in float.
float __wavec_dot2add(float2 a, float2 b, float acc) { return acc + a.x * b.x + a.y * b.y; }
// dot4add_*8packed: four byte products summed into a 32-bit accumulator (wrapping).
int __wavec_dot4add_i8packed(uint a, uint b, int acc) {
    int4 x = int4(int(a << 24), int(a << 16), int(a << 8), int(a)) >> 24;
    int4 y = int4(int(b << 24), int(b << 16), int(b << 8), int(b)) >> 24;
    return acc + x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
}
uint __wavec_dot4add_u8packed(uint a, uint b, uint acc) {
    uint4 x = uint4(a, a >> 8, a >> 16, a >> 24) & 0xFF;
    uint4 y = uint4(b, b >> 8, b >> 16, b >> 24) & 0xFF;
    return acc + x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
}
// D3DCOLORtoUBYTE4: swizzle to BGRA and scale by 255.001953 (as DXC), truncating.
int4 __wavec_D3DCOLORtoUBYTE4(float4 c) { return (int4)(c.zyxw * 255.001953f); }
// AddUint64: 64-bit adds of (low, high) uint pairs, with the carry from the low word.
uint2 __wavec_AddUint64(uint2 a, uint2 b) {
    uint lo = a.x + b.x;
    return uint2(lo, a.y + b.y + (lo < a.x ? 1u : 0u));
}
uint4 __wavec_AddUint64(uint4 a, uint4 b) { return uint4(__wavec_AddUint64(a.xy, b.xy), __wavec_AddUint64(a.zw, b.zw)); }
