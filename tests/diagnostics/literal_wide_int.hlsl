// Compiles, with warnings: unsuffixed integer literals are 64-bit `literal int` values (as
// in DXC); one that does not fit meets a 32-bit type truncated (W0207). Literal arithmetic is
// 64-bit, so `0x100000000 >> 4` fits and warns nothing.
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex)
{
    uint a = 5000000000;
    int b = -0x180000000;
    uint c = 0x100000000 >> 4;
    float f = 5000000000;
    Out[i] = a + b + c + (uint)f + i * 0x1FFFFFFFF + (8000000000).x;
}
