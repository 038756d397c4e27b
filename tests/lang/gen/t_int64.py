"""64-bit integers (issue 8, item 3: the 64-bit variants of the HLSL library): int64_t and
uint64_t arithmetic, shifts, compares, bit intrinsics, conversions (to float rounded to
nearest even from the exact integer, from float truncated), literals, layouts, and wave
operations. The model computes with Python integers wrapped to 64 bits."""
import struct

from lib import T, SB, RWSB, BAB, RWBAB, CB, f32, u32, f32_bits, f16, f16_bits, i16, u16, words, waves_of, Rng

TESTS = []
M64 = (1 << 64) - 1


def test(fn):
    TESTS.append(fn)
    return fn


def both_widths(fn):
    """A wave test written for 32-lane waves (NAME) and 64-lane waves (NAME_w64, --target gcn)."""
    TESTS.append(lambda: fn(32))
    TESTS.append(lambda: fn(64))
    TESTS[-2].__name__ = fn.__name__
    TESTS[-1].__name__ = fn.__name__ + '_w64'
    return fn


def u64(x):
    return x & M64


def i64(x):
    x &= M64
    return x - (1 << 64) if x >> 63 else x


def int_to_f32(n):
    """An integer rounded once to f32, to nearest even (Python's float() of a 64-bit int
    rounds to f64 first, which can differ)."""
    if n == 0:
        return 0.0
    sign = -1.0 if n < 0 else 1.0
    m = abs(n)
    shift = max(m.bit_length() - 24, 0)
    q, r = divmod(m, 1 << shift)
    if shift:
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
    return sign * f32(float(q << shift))


def popcount(x):
    return bin(u64(x)).count('1')


def fbh_u(x):
    x = u64(x)
    return x.bit_length() - 1 if x else 0xFFFFFFFF


def fbh_s(x):
    x = i64(x)
    return fbh_u(~x if x < 0 else x)


def fbl(x):
    x = u64(x)
    return (x & -x).bit_length() - 1 if x else 0xFFFFFFFF


def rev64(x):
    return int('{:064b}'.format(u64(x))[::-1], 2)


def sign(x):
    return (x > 0) - (x < 0)


@test
def int64_ops():
    hlsl = r'''
// int64_t and uint64_t: arithmetic wraps at 64 bits, shifts use the amount's low 6 bits
// (arithmetic for int64_t), compares are signed or not, the bit intrinsics see 64 bits, and
// conversions: to 32 bits keeps the low half, from int sign-extends, to float rounds to
// nearest even, from float truncates toward zero. l/ll literals are int64_t, ull uint64_t.
StructuredBuffer<int64_t> A : register(t0);
StructuredBuffer<uint64_t> B : register(t1);
StructuredBuffer<uint> Sh : register(t2);
StructuredBuffer<float> F : register(t3);
RWStructuredBuffer<int64_t> OutI : register(u0);
RWStructuredBuffer<uint64_t> OutU : register(u1);
RWStructuredBuffer<uint> OutC : register(u2);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex) {
  int64_t a = A[i];
  int64_t b = A[(i + 3) % 8];
  uint64_t u = B[i];
  uint64_t v = B[(i + 5) % 8];
  uint s = Sh[i];
  uint o = i * 12;
  OutI[o + 0] = a + b;
  OutI[o + 1] = a - b;
  OutI[o + 2] = a * b;
  OutI[o + 3] = -a;
  OutI[o + 4] = ~a;
  OutI[o + 5] = a >> s;
  OutI[o + 6] = a << s;
  OutI[o + 7] = (a & b) | (a ^ 0x0F0F0F0F0F0F0F0Fll);
  OutI[o + 8] = min(a, b) + 3 * max(a, b);
  OutI[o + 9] = abs(a);
  OutI[o + 10] = clamp(a, -5000000000ll, 5000000000ll);
  OutI[o + 11] = (int64_t)(int)i * -3 + sign(a) + (int64_t)F[i];
  OutU[o + 0] = u + v;
  OutU[o + 1] = u - v;
  OutU[o + 2] = u * v;
  OutU[o + 3] = u >> s;
  OutU[o + 4] = u << s;
  OutU[o + 5] = min(u, v);
  OutU[o + 6] = max(u, v) ^ 0xFFFFFFFF00000000ull;
  OutU[o + 7] = reversebits(u);
  OutU[o + 8] = (uint64_t)(i + 1) << 40 | 5000000000;
  OutU[o + 9] = (uint64_t)abs(F[i]);
  OutU[o + 10] = u * 3u + (uint64_t)(s * 4u);
  OutU[o + 11] = (uint64_t)(-1) >> (s & 7);
  uint c = i * 16;
  OutC[c + 0] = a < b;
  OutC[c + 1] = a <= b;
  OutC[c + 2] = a > b;
  OutC[c + 3] = a == b || a != a;
  OutC[c + 4] = u < v;
  OutC[c + 5] = u >= v;
  OutC[c + 6] = countbits(u);
  OutC[c + 7] = firstbithigh(u);
  OutC[c + 8] = firstbithigh(a);
  OutC[c + 9] = firstbitlow(a);
  OutC[c + 10] = (uint)u;
  OutC[c + 11] = (uint)(u >> 32);
  OutC[c + 12] = asuint((float)a);
  OutC[c + 13] = asuint((float)u);
  OutC[c + 14] = (uint)(int)(a >> 40);
  OutC[c + 15] = any(u) + 2 * (bool)(a & 1);
}
'''
    A = [0, 1, -1, 0x7FFFFFFFFFFFFFFF, -0x8000000000000000, 0x0123456789ABCDEF, -5000000000, (1 << 32) + 7]
    B = [0, 1, M64, 1 << 63, 0xFEDCBA9876543210, (1 << 24) + 1, (1 << 40) + (1 << 16) + 1, (1 << 53) + 3]
    S = [0, 1, 31, 32, 33, 63, 40, 7]
    F = [f32(x) for x in [2.5, -3.75, 1e10, -1e10, 0.0, 123456789.0, -0.5, 4294967296.0]]
    oi, ou, oc = [], [], []
    for i in range(8):
        a, b, u, v, s = A[i], A[(i + 3) % 8], B[i], B[(i + 5) % 8], S[i]
        sh = s & 63
        oi += [i64(a + b), i64(a - b), i64(a * b), i64(-a), i64(~a), i64(a >> sh), i64(a << sh),
               i64((a & b) | (a ^ 0x0F0F0F0F0F0F0F0F)), i64(min(a, b) + 3 * max(a, b)), i64(abs(a)),
               min(max(a, -5000000000), 5000000000), i64(i * -3 + sign(a) + int(F[i]))]
        ou += [u64(u + v), u64(u - v), u64(u * v), u >> sh, u64(u << sh), min(u, v), max(u, v) ^ 0xFFFFFFFF00000000, rev64(u),
               u64(((i + 1) << 40) | 5000000000), int(abs(F[i])), u64(u * 3 + u32(s * 4)), M64 >> (s & 7)]
        oc += [int(a < b), int(a <= b), int(a > b), int(a == b), int(u < v), int(u >= v), popcount(u), fbh_u(u), fbh_s(a), fbl(a),
               u & 0xFFFFFFFF, u >> 32, f32_bits(int_to_f32(a)), f32_bits(int_to_f32(u)), u32(i64(a >> 40)),
               int(u != 0) + 2 * (a & 1)]
    t = T('int64_ops', '''int64_t / uint64_t arithmetic, shifts by 0..63, compares, min/max/abs/clamp/sign, countbits,
firstbithigh/low, reversebits, conversions to and from 32-bit integers and float (rounding
once to nearest even: 2^24+1, 2^40+2^16+1, 2^53+3, 2^63-1), and 64-bit literals.''', hlsl)
    t.buf('A', 'Int64', A, SB, 0)
    t.buf('B', 'UInt64', B, SB, 1)
    t.buf('Sh', 'UInt32', S, SB, 2)
    t.buf('F', 'Float32', F, SB, 3)
    t.out('OutI', 'Int64', oi, RWSB, 0)
    t.out('OutU', 'UInt64', ou, RWSB, 1)
    t.out('OutC', 'UInt32', oc, RWSB, 2)
    t.write()



def tdiv(a, b):
    """Division truncating toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def trem(a, b):
    return a - b * tdiv(a, b)


@test
def int64_divide():
    hlsl = r'''
// 64-bit division and remainder (WAVE divides 32-bit values only: a shift-and-subtract loop
// per lane): signed ones truncate toward zero and the remainder takes the dividend's sign,
// INT64_MIN / -1 wraps to INT64_MIN; an unsigned division by zero gives all ones and the
// dividend as remainder (as D3D defines it). Constant divisors and divisors above 2^63.
StructuredBuffer<int64_t> A : register(t0);
StructuredBuffer<int64_t> B : register(t1);
RWStructuredBuffer<int64_t> OutI : register(u0);
RWStructuredBuffer<uint64_t> OutU : register(u1);

[numthreads(12, 1, 1)]
void main(uint i : SV_GroupIndex) {
  int64_t a = A[i];
  int64_t b = B[i];
  uint64_t u = (uint64_t)a;
  uint64_t v = (uint64_t)b;
  OutI[i * 5 + 0] = a / b;
  OutI[i * 5 + 1] = a % b;
  OutI[i * 5 + 2] = a / 10 + a % -3ll;
  OutI[i * 5 + 3] = (int64_t)(i + 1) * 1000000007ll / (int64_t)(i + 2);
  // In a loop, under a divergent condition.
  int64_t acc = 0;
  for (uint k = 0; k < 3; k++) {
    if (k != i % 3) {
      acc += a / (int64_t)(k + 2);
    }
  }
  OutI[i * 5 + 4] = acc;
  OutU[i * 4 + 0] = u / v;
  OutU[i * 4 + 1] = u % v;
  OutU[i * 4 + 2] = u / (v >> (i % 3 * 20));
  OutU[i * 4 + 3] = u % 1000000007ull;
}
'''
    A = [0, 1, -1, 7, -7, 0x7FFFFFFFFFFFFFFF, -0x8000000000000000, 0x0123456789ABCDEF, -5000000000, (1 << 32) + 7,
         -0x8000000000000000, 0xFEDCBA987654321]
    B = [5, -1, 3, -2, 2, 0x100000001, -1, -0x7000000000000000, 7, 0x100000000, 0x8000000000000001 - (1 << 64), 12345]
    oi, ou = [], []
    for i in range(12):
        a, b = A[i], B[i]
        u, v = u64(a), u64(b)
        w = v >> (i % 3 * 20)
        acc = sum(tdiv(a, k + 2) for k in range(3) if k != i % 3)
        oi += [i64(tdiv(a, b)), trem(a, b), i64(tdiv(a, 10) + trem(a, -3)), tdiv((i + 1) * 1000000007, i + 2), i64(acc)]
        ou += [u // v if v else M64, u % v if v else u, u // w if w else M64, u % 1000000007]
    t = T('int64_divide', '''64-bit division and remainder, signed and unsigned, with negative operands, INT64_MIN / -1,
divisors above 2^63, constant divisors, divisions in a loop under a divergent condition, and an
unsigned division by zero.''', hlsl)
    t.buf('A', 'Int64', A, SB, 0)
    t.buf('B', 'Int64', B, SB, 1)
    t.out('OutI', 'Int64', oi, RWSB, 0)
    t.out('OutU', 'UInt64', ou, RWSB, 1)
    t.write()

@test
def int64_memory():
    hlsl = r'''
// 64-bit values in memory: 8-byte elements and members of structured buffers, byte-address
// Load<int64_t2>/Store<uint64_t>, cbuffer members (a uint64_t3 that cannot fit in the rest of
// a 16-byte row starts the next one, and spans two), groupshared arrays, local arrays indexed
// per lane, and vectors of them.
cbuffer C : register(b0) {
  uint64_t k;
  int64_t2 p;
  uint64_t3 q;
  uint tail;
};
struct S { int64_t x; uint64_t2 y; };
StructuredBuffer<S> In : register(t0);
ByteAddressBuffer Raw : register(t1);
RWStructuredBuffer<uint64_t> Out : register(u0);
RWByteAddressBuffer RawOut : register(u1);
groupshared int64_t Shared[4];

[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex) {
  S s = In[i];
  Shared[i] = s.x * 2;
  GroupMemoryBarrierWithGroupSync();
  int64_t2 r = Raw.Load<int64_t2>(16 * i);
  uint64_t loc[4] = { k, (uint64_t)p.x, (uint64_t)p.y, q.z };
  uint o = i * 6;
  Out[o + 0] = (uint64_t)Shared[(i + 1) % 4] + s.y.x;
  Out[o + 1] = s.y.y ^ k;
  Out[o + 2] = (uint64_t)(r.x + r.y);
  Out[o + 3] = loc[i];
  Out[o + 4] = q.x + q.y + tail;
  Out[o + 5] = dot(uint64_t3(q.x, q.y, 1), uint64_t3(2, 3, i));
  RawOut.Store<uint64_t>(8 * i, s.y.y + 1);
}
'''
    # The cbuffer by hand: k at 0, p at 16 (16 bytes), q at 32 (24 bytes: 32..56), tail at 56.
    cb = bytearray([0xA5]) * 64
    K, P, Q, TAIL = 0x1122334455667788, [-7, 1 << 40], [3, (1 << 33) + 1, M64 - 4], 99
    struct.pack_into('<Q', cb, 0, K)
    struct.pack_into('<qq', cb, 16, *P)
    struct.pack_into('<QQQ', cb, 32, *Q)
    struct.pack_into('<I', cb, 56, TAIL)
    r = Rng(64)
    X = [i64(r.next() << 32 | r.next()) for _ in range(4)]
    Y = [[u64(r.next() << 32 | r.next()) for _ in range(2)] for _ in range(4)]
    RAW = [i64(r.next() << 32 | r.next()) for _ in range(8)]
    ins = b''.join(struct.pack('<qQQ', X[i], Y[i][0], Y[i][1]) for i in range(4))
    out, raw_out = [], []
    loc = [K, u64(P[0]), u64(P[1]), Q[2]]
    for i in range(4):
        out += [u64(X[(i + 1) % 4] * 2 + Y[i][0]), Y[i][1] ^ K, u64(RAW[2 * i] + RAW[2 * i + 1]), loc[i], u64(Q[0] + Q[1] + TAIL),
                u64(Q[0] * 2 + Q[1] * 3 + i)]
        raw_out.append(u64(Y[i][1] + 1))
    t = T('int64_memory', '''64-bit integers in structured buffers (struct members 8-byte aligned), byte-address buffers,
cbuffers (DXC's rows: a uint64_t3 spans two), groupshared memory and local arrays.''', hlsl)
    t.buf('C', 'Hex32', words(bytes(cb)), CB, 0)
    t.buf('In', 'Hex32', words(ins), SB, 0, Stride=24)
    t.buf('Raw', 'Int64', RAW, BAB, 1)
    t.out('Out', 'UInt64', out, RWSB, 0)
    t.out('RawOut', 'UInt64', raw_out, RWBAB, 1)
    t.write()


@both_widths
def wave_int64(W):
    hlsl = r'''
// Wave operations on 64-bit integers, over all lanes and over a divergent third of them:
// sums (carries across the halves), products (wrapping), signed and unsigned min/max (the
// high halves decide, then the low ones), bitwise reductions, prefix sums and products,
// reads of the first lane, of lane 5 and across quads, and AllEqual.
StructuredBuffer<int64_t> In : register(t0);
RWStructuredBuffer<int64_t> Out : register(u0);

[numthreads(48, 1, 1)]
void main(uint i : SV_GroupIndex) {
  int64_t x = In[i];
  uint64_t u = (uint64_t)x;
  uint o = i * 16;
  Out[o + 0] = WaveActiveSum(x);
  Out[o + 1] = WaveActiveProduct(x | 1);
  Out[o + 2] = WaveActiveMin(x);
  Out[o + 3] = WaveActiveMax(x);
  Out[o + 4] = (int64_t)WaveActiveMin(u);
  Out[o + 5] = (int64_t)WaveActiveMax(u);
  Out[o + 6] = WaveActiveBitAnd(x) ^ WaveActiveBitOr(x) ^ WaveActiveBitXor(x);
  Out[o + 7] = WavePrefixSum(x);
  Out[o + 8] = WavePrefixProduct(x | 1);
  Out[o + 9] = WaveReadLaneFirst(x);
  Out[o + 10] = WaveReadLaneAt(x, 5);
  Out[o + 11] = QuadReadAcrossX(x) + QuadReadAcrossY(x) * 3 + QuadReadAcrossDiagonal(x) * 7;
  Out[o + 12] = WaveActiveAllEqual(x >> 60) + 2 * WaveActiveAllEqual((uint64_t)7 << 40);
  Out[o + 13] = 0;
  Out[o + 14] = 0;
  Out[o + 15] = 0;
  if (i % 3 == 1) {
    Out[o + 13] = WaveActiveSum(x);
    Out[o + 14] = WaveActiveMin(u);
    Out[o + 15] = WavePrefixSum(x);
  }
}
'''
    r = Rng(640 + W)
    X = [i64((r.next() << 32) | r.next()) >> (r.next() % 40) for _ in range(48)]
    out = [0] * (48 * 16)
    for wave in waves_of(48, W):
        xs = [X[g] for g in wave]
        us = [u64(x) for x in xs]
        prod = 1
        for x in xs:
            prod = i64(prod * (x | 1))
        band, bor, bxor = M64, 0, 0
        for x in us:
            band &= x
            bor |= x
            bxor ^= x
        div = [g for g in wave if g % 3 == 1]
        for k, g in enumerate(wave):
            o = g * 16
            pre = i64(sum(xs[:k]))
            pp = 1
            for x in xs[:k]:
                pp = i64(pp * (x | 1))
            quad = wave[(k & ~3):(k & ~3) + 4]
            qx = lambda j: X[quad[j]] if j < len(quad) else 0  # noqa: E731
            kq = k & 3
            out[o + 0] = i64(sum(xs))
            out[o + 1] = prod
            out[o + 2] = min(xs)
            out[o + 3] = max(xs)
            out[o + 4] = i64(min(us))
            out[o + 5] = i64(max(us))
            out[o + 6] = i64(band ^ bor ^ bxor)
            out[o + 7] = pre
            out[o + 8] = pp
            out[o + 9] = xs[0]
            out[o + 10] = xs[5]
            out[o + 11] = i64(qx(kq ^ 1) + 3 * qx(kq ^ 2) + 7 * qx(kq ^ 3))
            out[o + 12] = int(len(set(x >> 60 for x in xs)) == 1) + 2
            if g % 3 == 1:
                dx = [X[d] for d in div]
                out[o + 13] = i64(sum(dx))
                out[o + 14] = i64(min(u64(x) for x in dx))
                out[o + 15] = i64(sum(X[d] for d in div if d < g))
    # Named wave_*: the execution tests run these on targets of their wave width only.
    name = 'wave_int64' if W == 32 else 'wave_int64_w64'
    notes = ['Expectations for waves of 32 lanes (the generic target); wave_int64_w64.test has them for 64.'] if W == 32 else \
        ['Expectations for waves of 64 lanes (W = 64), on the gcn target:', 'wavec: --target gcn']
    t = T(name, '''Wave operations on 64-bit integers (uniform and divergent), with values that use both halves.''', hlsl, notes=notes)
    t.buf('In', 'Int64', X, SB, 0)
    t.out('Out', 'Int64', out, RWSB, 0)
    t.write()


def int_to_f16_bits(n):
    """An integer rounded once to half, to nearest even (infinity from 65520 up)."""
    if n == 0:
        return 0
    s = 0x8000 if n < 0 else 0
    m = abs(n)
    shift = max(m.bit_length() - 11, 0)
    q, r = divmod(m, 1 << shift)
    if shift:
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
    v = q << shift
    return s | (0x7C00 if v >= 65520 else f16_bits(float(v)))


@test
def int64_conv16():
    hlsl = r'''
// 64-bit integers meet 16-bit types (-enable-16bit-types): int16_t sign-extends, uint16_t
// zero-extends, to 16 bits keeps the low bits, to half rounds once to nearest even (not
// through float: 2049 + 2^k tails would round twice), from half truncates toward zero.
StructuredBuffer<int64_t> A : register(t0);
StructuredBuffer<half> H : register(t1);
RWStructuredBuffer<int64_t> OutI : register(u0);
RWStructuredBuffer<uint16_t> Out16 : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex) {
  int64_t a = A[i];
  half h = H[i];
  int16_t s = (int16_t)a;
  uint16_t u = (uint16_t)(a >> 8);
  OutI[i * 4 + 0] = s;
  OutI[i * 4 + 1] = u;
  OutI[i * 4 + 2] = (int64_t)h;
  OutI[i * 4 + 3] = (int64_t)(uint64_t)abs(h) + (uint64_t)s;
  Out16[i * 4 + 0] = asuint16((half)a);
  Out16[i * 4 + 1] = asuint16((half)(uint64_t)a);
  Out16[i * 4 + 2] = (uint16_t)a;
  Out16[i * 4 + 3] = (uint16_t)(int16_t)(a >> 48);
}
'''
    A = [0, -1, 2049 + (1 << 40), 0x7FFFFFFFFFFFFFFF, -65519, 65519, 4097 * (1 << 20) + 1, -(3 << 61) - 12345]
    H = [f16(x) for x in [2.5, -3.75, 1000.5, -0.25, 65504.0, -2050.0, 7.0, 0.0]]
    oi, o16 = [], []
    for i in range(8):
        a, h = A[i], H[i]
        s = i16(a)
        u = u16(a >> 8)
        oi += [s, u, int(h), i64(int(abs(h)) + u64(s))]
        o16 += [int_to_f16_bits(a), int_to_f16_bits(u64(a)), u16(a), u16(i16(a >> 48))]
    t = T('int64_conv16', '''64-bit integers converted to and from int16_t, uint16_t and half (rounded once, to nearest even;
values that overflow half give infinity).''', hlsl, run='-enable-16bit-types -T cs_6_2')
    t.buf('A', 'Int64', A, SB, 0)
    t.buf('H', 'Float16', H, SB, 1)
    t.out('OutI', 'Int64', oi, RWSB, 0)
    t.out('Out16', 'UInt16', o16, RWSB, 1)
    t.write()
