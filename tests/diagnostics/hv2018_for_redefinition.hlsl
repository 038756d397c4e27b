// -HV 2018
// Compiles, with warnings: under HLSL 2018 a `for` init variable belongs to the enclosing
// scope, so declaring it again in a later loop (or over a local of that scope) shadows the
// first declaration (W0206); the most recent one is used after the loops.
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex)
{
    uint sum = 0;
    for (uint k = 0; k < 4; k++)
        sum += k;
    for (uint k = 1; k < 3; k++)
        sum += k;
    int j = 5;
    for (float j = 0.5; j < 2; j += 1)
        sum += 1;
    Out[i] = sum + k + (uint)j;
}
