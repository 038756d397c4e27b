// A literal with a `u` suffix must fit in 32 bits (`ull` makes a uint64_t); `l` and `ll` make an
// int64_t (5000000000ll is fine); an unsuffixed one may have up to 63 bits.
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex)
{
    Out[i] = 5000000000u + 5000000000ll + 0x10000000000000000;
}
