// 64-bit integers compile, but WAVE has no instructions for 64-bit atomics (CAP_ATOMIC_64
// has no opcodes): they are refused, never done as two 32-bit atomics. (Division compiles.)
RWStructuredBuffer<int64_t> Out : register(u0);
RWByteAddressBuffer Raw : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex)
{
    int64_t a = Out[i];
    uint64_t u = (uint64_t)a;
    Out[i] = a / 3 + (int64_t)(u % 7u);
    InterlockedAdd(Out[0], a);
    uint64_t old;
    Raw.InterlockedMax(0, u, old);
    Raw.InterlockedAdd64(8, u);
}
