// Loops, compound assignment, ++/--, ternary, bit operations.
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(32, 1, 1)]
void main(uint3 gid : SV_GroupID, uint3 tid : SV_GroupThreadID, uint gi : SV_GroupIndex)
{
    uint base = gid.x * 32 + tid.x;
    uint acc = 0, bits = In[base];
    [unroll(4)]
    for (int k = 0; k < 8; ++k) {
        acc += (bits >> k) & 1u;
        if (acc > 100u) break;
    }
    int j = 10;
    [loop]
    while (j > 0) {
        j -= 3;
        if ((j & 1) == 0)
            continue;
        acc ^= (uint)j << 2;
    }
    do {
        acc--;
    } while (acc > 1000 && !(acc % 7 == 0));
    float f = acc > 5 ? 1.5f : .25;
    acc *= (uint)f;
    Out[base] = gi == 0 ? acc : ~acc | 0x10;
}
