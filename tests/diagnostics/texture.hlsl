Texture2D<float4> Albedo : register(t0);
SamplerState Linear : register(s0);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = Albedo.Load(int3(id.xy, 0)); }
