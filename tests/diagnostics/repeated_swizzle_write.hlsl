RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    float4 v = 0;
    v.xx = float2(1, 2);
    Out[0] = v;
}
