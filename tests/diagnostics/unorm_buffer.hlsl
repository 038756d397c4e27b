RWBuffer<unorm float4> Pixels : register(u0);
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Pixels[i] = 0.5; }
