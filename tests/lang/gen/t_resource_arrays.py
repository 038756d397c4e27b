"""Resource arrays, resources in structs, ConstantBuffer<T> values, UAV counters and
append/consume buffers (issue 8, the offload-test-suite's Feature/ResourceArrays,
LocalResources, ResourcesInStructs, ConstantBufferT and StructuredBuffer counter tests)."""

from lib import T, SB, RWSB, RWBAB, CB, TB, RWTB, f32, i32, u32, f32_bits, fadd, words, cb_pack, struct, scalar, vec, Rng

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def res_array_global():
    hlsl = r'''
// Resource arrays: every element is a resource of its own, bound to consecutive registers
// (Grid[r][c] of Grid[2][3] : register(u4) at u4 + 3r + c). A constant index picks the element
// at compile time; a dynamic one (with NonUniformResourceIndex or not) selects per lane.
StructuredBuffer<int> In[3] : register(t0);
RWStructuredBuffer<int> Grid[2][3] : register(u4);
RWStructuredBuffer<int> Out : register(u0);
RWByteAddressBuffer Raw[2] : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex) {
  int a = In[0][i] + 10 * In[2][i];
  int b = In[NonUniformResourceIndex(i % 3)][i];
  int c = 0;
  for (uint k = 0; k < 3; k++)
    c += In[k][(i + k) % 8];
  Out[i] = a + 100 * b + 10000 * c;
  Grid[i % 2][(i / 2) % 3][i] = a - b;
  Grid[1][2][8 + i] = c;
  Raw[i & 1].Store(4 * i, 7 * i + 1);
}
'''
    r = Rng(81)
    In = [[r.int(-9, 9) for _ in range(8)] for _ in range(3)]
    out, grid, raw = [], [[-1] * 16 for _ in range(6)], [[0] * 8 for _ in range(2)]
    for i in range(8):
        a = In[0][i] + 10 * In[2][i]
        b = In[i % 3][i]
        c = sum(In[k][(i + k) % 8] for k in range(3))
        out.append(i32(a + 100 * b + 10000 * c))
        grid[3 * (i % 2) + (i // 2) % 3][i] = i32(a - b)
        grid[5][8 + i] = c
        raw[i & 1][i] = 7 * i + 1
    t = T('res_array_global', '''Resource arrays declared globally: one- and two-dimensional, structured and byte-address, read
with constant indices, per-lane indices (NonUniformResourceIndex), and a loop index; each
element is its own buffer of the pipeline's ArraySize-long array at consecutive registers.''', hlsl)
    t.buf('In', 'Int32', In, SB, 0, ArraySize=3)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.out('Raw', 'Hex32', raw, RWBAB, 1, ArraySize=2)
    t.out('Grid', 'Int32', grid, RWSB, 4, fill=-1, ArraySize=6)
    t.write()


@test
def res_array_unbounded():
    hlsl = r'''
// Unbounded resource arrays take their size from the host's descriptor count at their register
// (the pipeline's ArraySize): Buf[] holds 4 buffers, Multi[][2] 6 (3 x 2).
RWBuffer<int> Buf[] : register(u1);
RWStructuredBuffer<uint> Multi[][2] : register(u8);
RWStructuredBuffer<int> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex) {
  Out[i] = Buf[NonUniformResourceIndex(i)][i] * 3 + Buf[(i + 1) % 4][(i + 2) % 4];
  Multi[i % 3][i & 1][i] = Multi[2][1][i] + i;
}
'''
    r = Rng(82)
    buf = [[r.int(-50, 50) for _ in range(4)] for _ in range(4)]
    multi = [[r.int(0, 99) for _ in range(4)] for _ in range(6)]
    out = [i32(buf[i][i] * 3 + buf[(i + 1) % 4][(i + 2) % 4]) for i in range(4)]
    want = [row[:] for row in multi]
    for i in range(4):
        want[2 * (i % 3) + (i & 1)][i] = multi[5][i] + i
    t = T('res_array_unbounded', '''Unbounded resource arrays (Buf[], Multi[][2]) sized by the pipeline's ArraySize at their
register, read and written with dynamic and constant indices.''', hlsl)
    t.buf('Buf', 'Int32', buf, RWTB, 1, ArraySize=4)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.out('Multi', 'UInt32', want, RWSB, 8, init=multi, ArraySize=6)
    t.write()


@test
def res_array_local():
    hlsl = r'''
// Arrays of buffers as values: local arrays built by initializer lists or element by element,
// passed to functions by value (a callee's change to its copy stays there), a sub-array of a
// two-dimensional global array passed whole, a buffer chosen by if/else.
RWStructuredBuffer<int> X : register(u0);
RWStructuredBuffer<int> Y : register(u1);
RWStructuredBuffer<float> In[4][2] : register(u2);
RWStructuredBuffer<float> OutF : register(u10);
RWByteAddressBuffer Arr[4] : register(u11);

void SomeFn(RWStructuredBuffer<int> B[2], uint idx, int v) {
  B[0] = Y;
  B[0][idx] = v;
}

float Sum(RWStructuredBuffer<float> A[2], uint idx) {
  return A[0][idx] + A[1][idx];
}

[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex) {
  RWStructuredBuffer<int> A[2] = { X, Y };
  SomeFn(A, i, 1);
  A[0][i] += 2;
  OutF[i] = Sum(In[NonUniformResourceIndex(i)], i) + Sum(In[3 - i], i + 4);
  RWByteAddressBuffer L[4];
  L[0] = Arr[3];
  L[1] = Arr[2];
  L[2] = Arr[1];
  L[3] = Arr[0];
  L[i].Store(0, i + 10);
  RWByteAddressBuffer Sel;
  if (i == 0)
    Sel = Arr[0];
  else
    Sel = Arr[NonUniformResourceIndex(1)];
  Sel.Store(4 + 4 * i, i + 100);
}
'''
    r = Rng(83)
    In = [[f32(r.int(-40, 40) / 2) for _ in range(8)] for _ in range(8)]
    X = [10 * i for i in range(4)]
    outf = [fadd(fadd(In[2 * i][i], In[2 * i + 1][i]), fadd(In[2 * (3 - i)][i + 4], In[2 * (3 - i) + 1][i + 4])) for i in range(4)]
    arr = [[0] * 8 for _ in range(4)]
    for i in range(4):
        arr[3 - i][0] = i + 10
        sel = 0 if i == 0 else 1
        arr[sel][1 + i] = i + 100
    t = T('res_array_local', '''Local arrays of buffers (initializer lists, element assignments), arrays of buffers passed to
functions by value, a row of a two-dimensional resource array passed as an array, and a buffer
chosen by control flow.''', hlsl)
    t.out('X', 'Int32', [x + 2 for x in X], RWSB, 0, init=X)
    t.out('Y', 'Int32', [1] * 4, RWSB, 1)
    t.buf('In', 'Float32', In, RWSB, 2, ArraySize=8)
    t.out('OutF', 'Float32', outf, RWSB, 10)
    t.out('Arr', 'Hex32', arr, RWBAB, 11, ArraySize=4)
    t.write()


@test
def res_in_structs():
    hlsl = r'''
// Resources in global structs and classes are resources of their own. With register(x#) the
// resources of class x bind to consecutive registers from x# in declaration order (a base
// class's first, array elements one each): g.SrvBuf1 t3, g.SrvBuf2 t4, g.e.UavBuf1 u5,
// g.UavBufs2[0..1] u6-u7; an array of structs steps through them (d[k].Buf at u10 + k);
// without a register each used resource binds on its own (e2.Buf: u1, the lowest free).
struct E { RWBuffer<int> UavBuf1; };
class F { StructuredBuffer<int> SrvBuf1; };
class G : F {
  E e;
  StructuredBuffer<int> SrvBuf2;
  RWBuffer<int> UavBufs2[2];
  int Get(uint i) { return SrvBuf1[i] + SrvBuf2[i]; }
};
struct A { RWBuffer<int> Buf; };

G g : register(u5) : register(t3);
A d[3] : register(u10);
A e2;
RWStructuredBuffer<int4> Out : register(u0);

int Twice(A a, uint i) { return 2 * a.Buf[i]; }

[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex) {
  int x = g.e.UavBuf1[i];
  int y = g.Get(i);
  int z = g.UavBufs2[1][i];
  int w = d[i % 3].Buf[i] + Twice(d[2], i);
  Out[i] = int4(x, y, z, w);
  e2.Buf[i] = x - y;
  g.UavBufs2[0][i] = z + 1;
}
'''
    r = Rng(84)
    S1, S2, U1, U20, U21 = ([r.int(-20, 20) for _ in range(4)] for _ in range(5))
    D = [[r.int(-20, 20) for _ in range(4)] for _ in range(3)]
    out, e2 = [], []
    for i in range(4):
        x, y, z = U1[i], S1[i] + S2[i], U21[i]
        w = D[i % 3][i] + 2 * D[2][i]
        out += [x, y, z, w]
        e2.append(x - y)
    t = T('res_in_structs', '''Resources inside global structs and classes (inheritance, nested structs, arrays of resources in
them, arrays of such structs): bindings from one register per class, implicit bindings of
the used ones, member functions reading them through `this`, structs passed by value.''', hlsl)
    t.buf('SrvBuf1', 'Int32', S1, SB, 3)
    t.buf('SrvBuf2', 'Int32', S2, SB, 4)
    t.buf('UavBuf1', 'Int32', U1, RWTB, 5)
    t.out('UavBufs2', 'Int32', [[z + 1 for z in U21], U21], RWTB, 6, init=[U20, U21], ArraySize=2)
    for k in range(3):
        t.buf('D%d' % k, 'Int32', D[k], RWTB, 10 + k)
    t.out('E2', 'Int32', e2, RWTB, 1)
    t.out('Out', 'Int32', out, RWSB, 0, Stride=16)
    t.write()


@test
def res_constantbuffer_arrays():
    hlsl = r'''
// Arrays of ConstantBuffer<T>: members read through a constant index, a ConstantBuffer<T>
// chosen per lane kept in a local and copied whole into a buffer element or passed as a T.
struct S {
  int a;
  float4 b;
};
ConstantBuffer<S> CBs[3] : register(b2);
RWStructuredBuffer<S> Copies : register(u0);
RWStructuredBuffer<float> Sums : register(u1);

float Total(S s) { return s.a + s.b.x + s.b.y + s.b.z + s.b.w; }

[numthreads(6, 1, 1)]
void main(uint i : SV_GroupIndex) {
  ConstantBuffer<S> cb = CBs[NonUniformResourceIndex(i % 3)];
  Copies[i] = cb;
  Sums[i] = Total(cb) + CBs[1].a * 100;
}
'''
    fields = [('a', scalar('int')), ('b', vec('float', 4))]
    vals = [{'a': 1, 'b': [1.0, 2.0, 3.0, 4.0]}, {'a': -7, 'b': [-1.5, 0.25, 8.0, 2.0]},
            {'a': 12, 'b': [0.5, 0.5, -0.5, 100.0]}]
    cbs = [words(cb_pack(fields, v)) for v in vals]
    copies, sums = [], []
    for i in range(6):
        v = vals[i % 3]
        copies += [u32(v['a'])] + [f32_bits(x) for x in v['b']]
        s = f32(v['a'])
        for x in v['b']:
            s = fadd(s, x)
        sums.append(fadd(s, f32(vals[1]['a'] * 100)))
    t = T('res_constantbuffer_arrays', '''An array of ConstantBuffer<S> (each element a cbuffer at b2..b4, DXC's layout: a at 0, b at
16): a member through a constant index, a ConstantBuffer<S> chosen per lane as a local, copied
into a RWStructuredBuffer<S> element and passed to a function taking an S.''', hlsl)
    t.buf('CBs', 'Hex32', cbs, CB, 2, ArraySize=3)
    t.out('Copies', 'Hex32', copies, RWSB, 0, Stride=20)
    t.out('Sums', 'Float32', sums, RWSB, 1)
    t.write()


@test
def res_counters():
    hlsl = r'''
// UAV counters: IncrementCounter returns the count before, DecrementCounter the count after;
// Append stores at the incremented count, Consume reads at the decremented one. Q is bound as
// an append buffer (u3, with its counter), a plain view (u4) and a consume buffer (u5): one
// buffer, one counter. Arr's two buffers have a counter each. Which lane gets which count
// depends on the order of the atomics: the marks record only that every count came once.
RWStructuredBuffer<uint> Inc : register(u0);
RWStructuredBuffer<uint> Dec : register(u1);
RWStructuredBuffer<uint> Marks : register(u2);
AppendStructuredBuffer<uint> App : register(u3);
RWStructuredBuffer<uint> View : register(u4);
ConsumeStructuredBuffer<uint> Con : register(u5);
RWStructuredBuffer<uint> Arr[2] : register(u6);

[numthreads(16, 1, 1)]
void main(uint i : SV_GroupIndex) {
  uint k = Inc.IncrementCounter();
  InterlockedAdd(Marks[k], 1);
  uint d = Dec.DecrementCounter();
  InterlockedAdd(Marks[16 + (0u - d) - 1], 1);
  App.Append(i * 3 + 1);
  DeviceMemoryBarrierWithGroupSync();
  if (i == 0) {
    for (uint j = 0; j < 16; j++)
      InterlockedAdd(Marks[32 + (View[j] - 1) / 3], 1);
  }
  DeviceMemoryBarrierWithGroupSync();
  uint v = Con.Consume();
  InterlockedAdd(Marks[48 + (v - 1) / 3], 1);
  for (uint r = 0; r < i % 3; r++)
    Arr[NonUniformResourceIndex(i & 1)].IncrementCounter();
  DeviceMemoryBarrierWithGroupSync();
  uint t = Arr[i & 1].IncrementCounter();
  InterlockedMax(Marks[64 + (i & 1)], t + 1);
}
'''
    marks = [1] * 64 + [sum(i % 3 + 1 for i in range(0, 16, 2)), sum(i % 3 + 1 for i in range(1, 16, 2))]
    t = T('res_counters', '''UAV counters (HasCounter descriptors): IncrementCounter, DecrementCounter, Append and Consume
on one buffer bound three ways, per-element counters of a resource array with dynamic indices;
order-independent marks of the counts each lane got.''', hlsl)
    t.buf('Inc', 'UInt32', [0] * 4, None)
    t.bind('Inc', RWSB, 0, HasCounter='true')
    t.buf('Dec', 'UInt32', [0] * 4, None)
    t.bind('Dec', RWSB, 1, HasCounter='true')
    t.out('Marks', 'UInt32', marks, RWSB, 2)
    t.buf('Q', 'UInt32', [0] * 16, None)
    t.bind('Q', RWSB, 3, HasCounter='true')
    t.bind('Q', RWSB, 4)
    t.bind('Q', RWSB, 5, HasCounter='true')
    t.buf('Arr', 'UInt32', [[0], [0]], None, ArraySize=2)
    t.bind('Arr', RWSB, 6, HasCounter='true')
    t.write()


@test
def res_dims_and_select():
    hlsl = r'''
// GetDimensions of buffers held in values: chosen by ?: and passed to a function, or an element
// of an array of structs chosen per lane (each its own buffer, of its own size); a typed buffer
// whose view (Int32) differs from its element type (int4) reports the view's element count.
// select() of structs and of buffers.
struct P2 { float x; float y; };
struct A { RWByteAddressBuffer Raw; };
StructuredBuffer<P2> P : register(t0);
StructuredBuffer<P2> Q : register(t1);
Buffer<int4> V : register(t2);
A d[2] : register(u1);
RWBuffer<uint> Dims : register(u0);
RWStructuredBuffer<P2> Pick : register(u3);

uint Count(StructuredBuffer<P2> b) {
  uint n, s;
  b.GetDimensions(n, s);
  return n * 100 + s;
}

[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex) {
  StructuredBuffer<P2> S = (i & 1) ? P : Q;
  Dims[i] = Count(S);
  uint bytes;
  d[i >> 1].Raw.GetDimensions(bytes);
  Dims[4 + i] = bytes;
  uint n;
  V.GetDimensions(n);
  Dims[8 + i] = n;
  Pick[i] = select(i < 2, P[i], select(i == 3, Q, P)[0]);
}
'''
    r = Rng(85)
    P = [[f32(r.int(-30, 30) / 4), f32(r.int(-30, 30) / 4)] for _ in range(5)]
    Q = [[f32(r.int(-30, 30) / 4), f32(r.int(-30, 30) / 4)] for _ in range(3)]
    dims = [508 if i & 1 else 308 for i in range(4)] + [12, 12, 20, 20] + [8] * 4
    pick = []
    for i in range(4):
        if i < 2:
            pick += P[i]
        else:
            pick += (Q if i == 3 else P)[0]
    t = T('res_dims_and_select', '''GetDimensions through buffer values (a ?: choice passed to a function; an element of an
array of structs holding buffers, chosen per lane), a typed buffer's view element count, and
select() of struct and buffer values.''', hlsl)
    t.buf('P', 'Float32', [x for p in P for x in p], SB, 0, Stride=8)
    t.buf('Q', 'Float32', [x for q in Q for x in q], SB, 1, Stride=8)
    t.buf('V', 'Int32', list(range(8)), TB, 2)
    t.buf('D0', 'Hex32', [0] * 3, RWBAB, 1)
    t.buf('D1', 'Hex32', [0] * 5, RWBAB, 2)
    t.out('Dims', 'UInt32', dims, RWTB, 0)
    t.out('Pick', 'Float32', pick, RWSB, 3, Stride=8)
    t.write()
