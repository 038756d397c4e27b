// Saved by an old editor: Latin-1 (é, 25°) with CRLF line endings.
RWStructuredBuffer<float> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = température;
}
