RWStructuredBuffer<int> Output : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int sum = 0;
    for (int i = 0; i < 4; i++)
        sum += i;
    int sum = 1;
    Output[id.x] = sum;
}
