// A semantic on a resource binds nothing (DXC and FXC ignore it): the buffers here get the
// implicit bindings t0 and u0, whatever `: t1` and `: u3` look like.
StructuredBuffer<float> Input : t1;
RWStructuredBuffer<float> Output : u3;
RWStructuredBuffer<float> Extra : EXTRA;

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Output[id.x] = Input[id.x] + Extra[id.x];
}
