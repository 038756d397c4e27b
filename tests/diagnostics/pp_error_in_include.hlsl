// The header declares a resource without a register.
#include "include/resources.hlsli"

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Output[id.x] = 1.0;
}
