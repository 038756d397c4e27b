RWStructuredBuffer<float> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float scale = 2.0;
    Out[id.x] = Scale * id.x;
}
