"""Item 5 of the language issue: groupshared memory, barriers, atomics, globallycoherent.

Atomic results are checked only where they do not depend on the order in which threads run:
final values of commutative operations under contention, and original values on elements that
one thread alone touches (so the original is known). Where many threads race for one value (a
compare-exchange, a slot counter) the test checks properties every order satisfies (exactly one
winner; every slot taken once)."""
from lib import T, SB, RWSB, RWBAB, i32, u32, Rng

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


INT_MAX, INT_MIN = 0x7FFFFFFF, -0x80000000


def s32(x):
    return i32(x)


@test
def atomic_groupshared():
    hlsl = r'''
// Interlocked* on groupshared scalars and array elements: Add, And, Or, Xor, Min, Max (signed on
// int, unsigned on uint) under contention, and every operation with the original-value out
// argument on an element only its own thread touches.
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> GroupOut : register(u0);
RWStructuredBuffer<uint> ThreadOut : register(u1);

groupshared uint gSum;
groupshared uint gAnd;
groupshared uint gOr;
groupshared uint gXor;
groupshared int gMinI;
groupshared int gMaxI;
groupshared uint gMinU;
groupshared uint gMaxU;
groupshared uint gCount[4];
groupshared uint gSlots[64];
groupshared int gSigned[64];

[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 gid : SV_GroupID) {
  if (gi == 0) {
    gSum = 0;
    gAnd = 0xFFFFFFFF;
    gOr = 0;
    gXor = 0;
    gMinI = 0x7FFFFFFF;
    gMaxI = (int)0x80000000;
    gMinU = 0xFFFFFFFF;
    gMaxU = 0;
  }
  if (gi < 4)
    gCount[gi] = gi * 100;
  gSlots[gi] = gi * 3;
  gSigned[gi] = (int)gi - 32;
  GroupMemoryBarrierWithGroupSync();

  uint v = In[gid.x * 64 + gi];
  InterlockedAdd(gSum, v);
  InterlockedAnd(gAnd, v | 0x00FF0000);
  InterlockedOr(gOr, v & 0x0F0F0F0F);
  InterlockedXor(gXor, v);
  InterlockedMin(gMinI, (int)v);
  InterlockedMax(gMaxI, (int)v);
  InterlockedMin(gMinU, v);
  InterlockedMax(gMaxU, v);
  InterlockedAdd(gCount[v & 3], 1);

  uint o0, o1, o2, o3, o4, o5, o6, o7, o8;
  InterlockedAdd(gSlots[gi], 5, o0);                        // gi*3 + 5
  InterlockedExchange(gSlots[gi], v, o1);                   // v
  InterlockedCompareExchange(gSlots[gi], v, v ^ 0x55, o2);  // equal: v ^ 0x55
  InterlockedCompareExchange(gSlots[gi], v, 7, o3);         // not equal: unchanged
  InterlockedCompareStore(gSlots[gi], v ^ 0x55, v + 1);     // equal: v + 1
  InterlockedCompareStore(gSlots[gi], v, 9);                // not equal: unchanged
  InterlockedMax(gSlots[gi], 1000, o4);
  InterlockedMin(gSlots[gi], 5000u, o5);
  InterlockedOr(gSlots[gi], 0x10000, o6);
  InterlockedAnd(gSlots[gi], ~1u, o7);
  InterlockedXor(gSlots[gi], 0xFF, o8);
  int s0, s1;
  InterlockedMin(gSigned[gi], -5, s0);
  InterlockedMax(gSigned[gi], (int)v, s1);
  GroupMemoryBarrierWithGroupSync();

  uint t = (gid.x * 64 + gi) * 13;
  ThreadOut[t + 0] = o0;
  ThreadOut[t + 1] = o1;
  ThreadOut[t + 2] = o2;
  ThreadOut[t + 3] = o3;
  ThreadOut[t + 4] = o4;
  ThreadOut[t + 5] = o5;
  ThreadOut[t + 6] = o6;
  ThreadOut[t + 7] = o7;
  ThreadOut[t + 8] = o8;
  ThreadOut[t + 9] = gSlots[gi];
  ThreadOut[t + 10] = (uint)s0;
  ThreadOut[t + 11] = (uint)s1;
  ThreadOut[t + 12] = (uint)gSigned[gi];
  if (gi == 0) {
    uint g = gid.x * 12;
    GroupOut[g + 0] = gSum;
    GroupOut[g + 1] = gAnd;
    GroupOut[g + 2] = gOr;
    GroupOut[g + 3] = gXor;
    GroupOut[g + 4] = (uint)gMinI;
    GroupOut[g + 5] = (uint)gMaxI;
    GroupOut[g + 6] = gMinU;
    GroupOut[g + 7] = gMaxU;
    for (uint k = 0; k < 4; ++k)
      GroupOut[g + 8 + k] = gCount[k];
  }
}
'''
    r = Rng(101)
    ins = []
    for g in range(2):
        for k in range(64):
            v = r.next()
            if g == 0 and k < 8:
                v = [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 999, 1000, 4999][k]
            if g == 1:
                v &= 0x7FFFFFFF if k % 2 else 0xFFFFFFFF
            ins.append(v)
    gout, tout = [], []
    for g in range(2):
        vs = ins[g * 64:(g + 1) * 64]
        s, a, o, x = 0, 0xFFFFFFFF, 0, 0
        for v in vs:
            s = u32(s + v)
            a &= v | 0x00FF0000
            o |= v & 0x0F0F0F0F
            x ^= v
        cnt = [k * 100 for k in range(4)]
        for v in vs:
            cnt[v & 3] += 1
        gout += [s, a, o, x, u32(min(s32(v) for v in vs)), u32(max(s32(v) for v in vs)), min(vs), max(vs)] + cnt
        for gi, v in enumerate(vs):
            slot = gi * 3
            o0 = slot
            slot = u32(slot + 5)
            o1 = slot
            slot = v
            o2 = slot
            slot = v ^ 0x55
            o3 = slot
            slot = u32(v + 1)
            o4 = slot
            slot = max(slot, 1000)
            o5 = slot
            slot = min(slot, 5000)
            o6 = slot
            slot |= 0x10000
            o7 = slot
            slot &= ~1 & 0xFFFFFFFF
            o8 = slot
            slot ^= 0xFF
            sg = gi - 32
            s0 = sg
            sg = min(sg, -5)
            s1 = sg
            sg = max(sg, s32(v))
            tout += [o0, o1, o2, o3, o4, o5, o6, o7, o8, slot, u32(s0), u32(s1), u32(sg)]
    t = T('atomic_groupshared', '''Memory model: InterlockedAdd/And/Or/Xor/Min/Max on groupshared scalars under contention (Min and
Max signed on int, unsigned on uint: inputs include 0x80000000 and 0xffffffff), InterlockedAdd
on a groupshared array element chosen by data, and Add/Exchange/CompareExchange (equal and not)/
CompareStore (equal and not)/Max/Min/Or/And/Xor with the original value on per-thread elements.''',
          hlsl, groups=[2])
    t.buf('In', 'Hex32', ins, SB, 0)
    t.out('GroupOut', 'Hex32', gout, RWSB, 0)
    t.out('ThreadOut', 'Hex32', tout, RWSB, 1)
    t.write()


@test
def atomic_structured():
    hlsl = r'''
// Interlocked* on RWStructuredBuffer elements (uint and int buffers) and on members of struct
// elements, with and without the original value.
struct Counters {
  uint hits;
  int lowest;
  int highest;
  uint bits;
};

StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<uint> Totals : register(u0);
RWStructuredBuffer<int> Signed : register(u1);
RWStructuredBuffer<Counters> C : register(u2);
RWStructuredBuffer<uint> PerThread : register(u3);
RWStructuredBuffer<uint> Orig : register(u4);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int v = In[i];
  uint u = (uint)v;
  InterlockedAdd(Totals[0], u);
  InterlockedAnd(Totals[1], u | 0xF0000000);
  InterlockedOr(Totals[2], u & 0x00FFFF00);
  InterlockedXor(Totals[3], u);
  InterlockedMin(Totals[4], u);
  InterlockedMax(Totals[5], u);
  InterlockedMin(Signed[0], v);
  InterlockedMax(Signed[1], v);
  InterlockedAdd(Signed[2], v);
  InterlockedAdd(C[v & 1].hits, 1);
  InterlockedMin(C[v & 1].lowest, v);
  InterlockedMax(C[v & 1].highest, v);
  InterlockedOr(C[v & 1].bits, 1u << (i & 31));

  uint o0, o1, o2, o3, o4;
  InterlockedAdd(PerThread[i], 10, o0);
  InterlockedExchange(PerThread[i], u, o1);
  InterlockedCompareExchange(PerThread[i], u, 0xABCD, o2);
  InterlockedCompareStore(PerThread[i], 0xABCD, i * 1000);
  InterlockedCompareStore(PerThread[i], 0xABCD, 5);          // no longer equal
  InterlockedMax(PerThread[i], 20000u, o3);
  InterlockedXor(PerThread[i], 0xF0F0F0F0, o4);
  Orig[i * 5 + 0] = o0;
  Orig[i * 5 + 1] = o1;
  Orig[i * 5 + 2] = o2;
  Orig[i * 5 + 3] = o3;
  Orig[i * 5 + 4] = o4;
}
'''
    r = Rng(202)
    n = 64
    ins = [i32(r.next() % 2000001 - 1000000) for _ in range(n)]
    ins[3], ins[40] = INT_MIN, INT_MAX
    tot0 = [1000, 0xFFFFFFFF, 0, 0x12345678, 0xFFFFFFFF, 0]
    sig0 = [INT_MAX, INT_MIN, -7]
    c0 = [0, INT_MAX, INT_MIN, 0, 5, INT_MAX, INT_MIN, 0x80000000]
    pt0 = [i * 7 for i in range(n)]
    tot = list(tot0)
    for v in ins:
        u = u32(v)
        tot[0] = u32(tot[0] + u)
        tot[1] &= u | 0xF0000000
        tot[2] |= u & 0x00FFFF00
        tot[3] ^= u
        tot[4] = min(tot[4], u)
        tot[5] = max(tot[5], u)
    sig = [min(sig0[0], min(ins)), max(sig0[1], max(ins)), i32(sig0[2] + sum(ins))]
    c = [list(c0[0:4]), list(c0[4:8])]
    for i, v in enumerate(ins):
        e = c[v & 1]
        e[0] += 1
        e[1] = min(e[1], v)
        e[2] = max(e[2], v)
        e[3] |= 1 << (i & 31)
    cw = [u32(x) for e in c for x in e]
    pt, orig = [], []
    for i, v in enumerate(ins):
        u = u32(v)
        x = pt0[i]
        o0 = x
        x = u32(x + 10)
        o1 = x
        x = u
        o2 = x
        x = 0xABCD if x == u else x
        x = i * 1000 if x == 0xABCD else x
        x = 5 if x == 0xABCD else x
        o3 = x
        x = max(x, 20000)
        o4 = x
        x ^= 0xF0F0F0F0
        pt.append(x)
        orig += [o0, o1, o2, o3, o4]
    t = T('atomic_structured', '''Memory model: InterlockedAdd/And/Or/Xor/Min/Max on RWStructuredBuffer<uint> and <int> elements
(signedness from the element type), on members of RWStructuredBuffer<struct> elements chosen by
data, and Add/Exchange/CompareExchange/CompareStore/Max/Xor with the original value.''', hlsl, groups=[2])
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Totals', 'Hex32', tot, RWSB, 0, init=tot0)
    t.out('Signed', 'Int32', sig, RWSB, 1, init=sig0)
    t.out('C', 'Hex32', cw, RWSB, 2, init=[u32(x) for x in c0], Stride=16)
    t.out('PerThread', 'Hex32', pt, RWSB, 3, init=pt0)
    t.out('Orig', 'Hex32', orig, RWSB, 4)
    t.write()


@test
def atomic_byteaddress():
    hlsl = r'''
// RWByteAddressBuffer atomics: InterlockedAdd/And/Or/Xor/Min/Max (unsigned for uint values,
// signed for int values), Exchange, CompareExchange, CompareStore, with and without originals.
StructuredBuffer<int> In : register(t0);
RWByteAddressBuffer Raw : register(u0);
RWStructuredBuffer<uint> Orig : register(u1);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int v = In[i];
  uint u = (uint)v;
  Raw.InterlockedAdd(0, u);
  Raw.InterlockedAnd(4, u | 0xFF000000);
  Raw.InterlockedOr(8, u & 0x0000FFF0);
  Raw.InterlockedXor(12, u);
  Raw.InterlockedMin(16, u);
  Raw.InterlockedMax(20, u);
  Raw.InterlockedMin(24, v);
  Raw.InterlockedMax(28, v);

  uint a = 32 + i * 4;
  uint o0, o1, o2, o3, o4;
  int o5;
  Raw.InterlockedAdd(a, 3, o0);
  Raw.InterlockedExchange(a, u, o1);
  Raw.InterlockedCompareExchange(a, u, 77, o2);    // equal: 77
  Raw.InterlockedCompareExchange(a, u, 78, o3);    // not equal: unchanged
  Raw.InterlockedCompareStore(a, 77, u * 2);       // equal
  Raw.InterlockedCompareStore(a, 77, 0);           // not equal
  Raw.InterlockedOr(a, 0x80000000, o4);
  Raw.InterlockedMin(a, (int)-5, o5);              // signed: the stored value is negative now
  Orig[i * 6 + 0] = o0;
  Orig[i * 6 + 1] = o1;
  Orig[i * 6 + 2] = o2;
  Orig[i * 6 + 3] = o3;
  Orig[i * 6 + 4] = o4;
  Orig[i * 6 + 5] = (uint)o5;
}
'''
    r = Rng(303)
    n = 64
    ins = [i32(r.next() % 4000001 - 2000000) for _ in range(n)]
    ins[5], ins[50], ins[7] = INT_MIN, INT_MAX, 0
    raw0 = [7, 0xFFFFFFFF, 0, 0xCAFEF00D, 0xFFFFFFFF, 0, u32(INT_MAX), u32(INT_MIN)] + [u32(i * 11) for i in range(n)]
    raw = list(raw0)
    for v in ins:
        u = u32(v)
        raw[0] = u32(raw[0] + u)
        raw[1] &= u | 0xFF000000
        raw[2] |= u & 0x0000FFF0
        raw[3] ^= u
        raw[4] = min(raw[4], u)
        raw[5] = max(raw[5], u)
        raw[6] = u32(min(i32(raw[6]), v))
        raw[7] = u32(max(i32(raw[7]), v))
    orig = []
    for i, v in enumerate(ins):
        u = u32(v)
        assert u != 77
        x = raw[8 + i]
        o0 = x
        x = u32(x + 3)
        o1 = x
        x = u
        o2 = x
        x = 77
        o3 = x
        x = u32(u * 2)
        o4 = x
        x |= 0x80000000
        o5 = x
        x = u32(min(i32(x), -5))
        raw[8 + i] = x
        orig += [o0, o1, o2, o3, o4, o5]
    t = T('atomic_byteaddress', '''Memory model: RWByteAddressBuffer.InterlockedAdd/And/Or/Xor/Min/Max at fixed offsets under
contention (Min/Max unsigned with uint values, signed with int values), and per-thread words with
Add/Exchange/CompareExchange (equal, not equal)/CompareStore/Or/Min and their original values.''',
          hlsl, groups=[2])
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Raw', 'Hex32', raw, RWBAB, 0, init=raw0)
    t.out('Orig', 'Hex32', orig, RWSB, 1)
    t.write()


@test
def atomic_contention():
    hlsl = r'''
// Races whose outcome is order-independent: one compare-exchange winner per group, unique
// slots from InterlockedAdd with the original value (in groupshared memory and in a buffer,
// across groups), checked through a bitmap filled with InterlockedOr.
RWStructuredBuffer<uint> Counter : register(u0);
RWStructuredBuffer<uint> Mask : register(u1);
RWStructuredBuffer<uint> Check : register(u2);
RWStructuredBuffer<uint> Winners : register(u3);

groupshared uint gWinner;
groupshared uint gCounter;
groupshared uint gOwner[64];

[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 gid : SV_GroupID, uint3 dtid : SV_DispatchThreadID) {
  if (gi == 0) {
    gWinner = 0;
    gCounter = 0;
  }
  GroupMemoryBarrierWithGroupSync();
  uint prev;
  InterlockedCompareExchange(gWinner, 0, gi + 1, prev);   // exactly one thread sees 0
  uint local;
  InterlockedAdd(gCounter, 1, local);
  uint slot;
  InterlockedAdd(Counter[0], 1, slot);
  InterlockedOr(Mask[slot / 32], 1u << (slot % 32));
  gOwner[local % 64] = gi;
  GroupMemoryBarrierWithGroupSync();
  bool won = prev == 0;
  uint ok = (won == (gWinner == gi + 1)) ? 1 : 0;   // the winner is the thread whose value stuck
  ok |= gOwner[local % 64] == gi ? 2 : 0;           // nobody else was given my local slot
  ok |= local < 64 ? 4 : 0;
  ok |= (prev == 0 || prev == gWinner) ? 8 : 0;     // losers saw the winner's value
  Check[dtid.x] = ok;
  if (won)
    InterlockedAdd(Winners[gid.x * 2], 1);
  if (gi == 63)
    InterlockedAdd(Winners[gid.x * 2 + 1], gCounter);
}
'''
    groups = 4
    t = T('atomic_contention', '''Memory model: contention with order-independent outcomes: one InterlockedCompareExchange winner
per group (and losers see the winner's value), unique slots from InterlockedAdd's original value
in groupshared memory and in a RWStructuredBuffer across 4 groups (a bitmap built with
InterlockedOr must be full: no slot twice, none out of range).''', hlsl, groups=[groups])
    t.out('Counter', 'UInt32', [groups * 64], RWSB, 0)
    t.out('Mask', 'Hex32', [0xFFFFFFFF] * (groups * 2), RWSB, 1)
    t.out('Check', 'UInt32', [15] * (groups * 64), RWSB, 2)
    t.out('Winners', 'UInt32', [1, 64] * groups, RWSB, 3)
    t.write()


@test
def barriers_all():
    hlsl = r'''
// Every barrier: GroupMemoryBarrierWithGroupSync (groupshared), DeviceMemoryBarrierWithGroupSync
// (a UAV written and read back by other threads of the group), AllMemoryBarrierWithGroupSync
// (both), and the non-synchronizing GroupMemoryBarrier, DeviceMemoryBarrier, AllMemoryBarrier
// between a thread's own accesses.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Scratch : register(u0);
RWStructuredBuffer<int> Out : register(u1);

groupshared int gs[64];

[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 gid : SV_GroupID) {
  uint base = gid.x * 64;
  int v = In[base + gi];
  gs[gi] = v;
  GroupMemoryBarrierWithGroupSync();
  int a = gs[(gi + 1) & 63];
  Scratch[base + gi] = a * 2;
  DeviceMemoryBarrierWithGroupSync();
  int b = Scratch[base + ((gi + 5) & 63)];
  gs[gi] = b + 1;
  AllMemoryBarrierWithGroupSync();
  int c = gs[63 - gi] + Scratch[base + (gi ^ 1)];
  AllMemoryBarrierWithGroupSync();    // others' reads of gs and Scratch come before these writes
  gs[gi] = c;
  GroupMemoryBarrier();
  int d = gs[gi] * 3;
  Scratch[base + gi] = d;
  DeviceMemoryBarrier();
  int e = Scratch[base + gi] - 1;
  AllMemoryBarrier();
  Out[base + gi] = e;
}
'''
    r = Rng(404)
    ins = [r.int(-10000, 10000) for _ in range(128)]
    scratch, out = [], []
    for g in range(2):
        v = ins[g * 64:(g + 1) * 64]
        a = [v[(k + 1) & 63] for k in range(64)]
        s1 = [x * 2 for x in a]
        b = [s1[(k + 5) & 63] for k in range(64)]
        gs = [x + 1 for x in b]
        c = [gs[63 - k] + s1[k ^ 1] for k in range(64)]
        d = [x * 3 for x in c]
        scratch += d
        out += [x - 1 for x in d]
    t = T('barriers_all', '''Memory model: all six barriers. Group-synchronizing ones order groupshared and UAV accesses
between threads of a group (neighbours' values read back); the non-synchronizing ones sit between
a thread's own accesses.''', hlsl, groups=[2])
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Scratch', 'Int32', scratch, RWSB, 0)
    t.out('Out', 'Int32', out, RWSB, 1)
    t.write()


@test
def globallycoherent_last_group():
    hlsl = r'''
// globallycoherent: the "last group finishes the job" reduction. Each group writes its partial
// sum, makes it visible device-wide, then counts itself done; the group that finds every other
// group done sums all the partials, reading them through the globallycoherent buffer.
#define NUM_GROUPS 4

StructuredBuffer<uint> In : register(t0);
globallycoherent RWStructuredBuffer<uint> Partials : register(u0);
RWStructuredBuffer<uint> Done : register(u1);
RWStructuredBuffer<uint> Total : register(u2);

groupshared uint gSum;
groupshared bool gLast;

[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 gid : SV_GroupID, uint3 dtid : SV_DispatchThreadID) {
  if (gi == 0)
    gSum = 0;
  GroupMemoryBarrierWithGroupSync();
  InterlockedAdd(gSum, In[dtid.x]);
  GroupMemoryBarrierWithGroupSync();
  if (gi == 0) {
    Partials[gid.x] = gSum;
    DeviceMemoryBarrier();
    uint before;
    InterlockedAdd(Done[0], 1, before);
    gLast = before == NUM_GROUPS - 1;
  }
  GroupMemoryBarrierWithGroupSync();
  if (gLast && gi < NUM_GROUPS)
    InterlockedAdd(Total[0], Partials[gi]);
}
'''
    r = Rng(505)
    ins = [r.int(0, 100000) for _ in range(256)]
    parts = [sum(ins[g * 64:(g + 1) * 64]) for g in range(4)]
    t = T('globallycoherent_last_group', '''Memory model: a globallycoherent RWStructuredBuffer of per-group partial sums, DeviceMemoryBarrier
before an InterlockedAdd that counts finished groups, and the last group (whichever it is) adding
up all partials. Total and the count do not depend on the order of the groups.''', hlsl, groups=[4])
    t.buf('In', 'UInt32', ins, SB, 0)
    t.out('Partials', 'UInt32', parts, RWSB, 0)
    t.out('Done', 'UInt32', [4], RWSB, 1)
    t.out('Total', 'UInt32', [sum(parts) + 1000], RWSB, 2, init=[1000])
    t.write()
