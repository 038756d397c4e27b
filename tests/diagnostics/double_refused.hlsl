// double compiles (WAVE's f64 instructions), but what HLSL and WAVE lack is refused: `%`
// on doubles (no f64 remainder: E0314), the float-only intrinsics (sqrt, floor, isnan, lerp...,
// as DXC: E0204), fma on floats (doubles only), and one-argument asuint of a double.
StructuredBuffer<double> In : register(t0);
RWStructuredBuffer<double> Out : register(u0);

[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    double d = In[i];
    Out[i] = d % 2.0;
    Out[i + 1] = sqrt(d) + floor(d);
    Out[i + 2] = isnan(d) ? 1.0 : lerp(d, 2.0, 0.5);
    Out[i + 3] = fma(1.0f, 2.0f, 3.0f);
    Out[i + 4] = asuint(d);
}
