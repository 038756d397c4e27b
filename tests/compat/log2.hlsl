// log2 (and through it log, log10 and pow): wave-ptx 0.1.2 translates `flog2`
// to `lg2.approx.f32`, whose absolute error (2^-22.6) pow multiplies by y;
// under wave-0.1.2 it is integer bit work and fmas (1.5 ulp), with `flog2`
// kept only for zeros, negatives, infinities and NaN.
StructuredBuffer<float2> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  float2 v = In[id.x];
  Out[id.x] = pow(v.x, v.y);
}
