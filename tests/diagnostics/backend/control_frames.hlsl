// wavec: --target generic
// 33 nested `if`s: one more than the 32 `if`/`loop` frames WAVE's control stack
// holds (wave-emu 0.1.2 and the simulator refused the listing when it ran).
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
 if (id.x != 0u) {
  if (id.x != 1u) {
   if (id.x != 2u) {
    if (id.x != 3u) {
     if (id.x != 4u) {
      if (id.x != 5u) {
       if (id.x != 6u) {
        if (id.x != 7u) {
         if (id.x != 8u) {
          if (id.x != 9u) {
           if (id.x != 10u) {
            if (id.x != 11u) {
             if (id.x != 12u) {
              if (id.x != 13u) {
               if (id.x != 14u) {
                if (id.x != 15u) {
                 if (id.x != 16u) {
                  if (id.x != 17u) {
                   if (id.x != 18u) {
                    if (id.x != 19u) {
                     if (id.x != 20u) {
                      if (id.x != 21u) {
                       if (id.x != 22u) {
                        if (id.x != 23u) {
                         if (id.x != 24u) {
                          if (id.x != 25u) {
                           if (id.x != 26u) {
                            if (id.x != 27u) {
                             if (id.x != 28u) {
                              if (id.x != 29u) {
                               if (id.x != 30u) {
                                if (id.x != 31u) {
                                 if (id.x != 32u) {
                                  Out[id.x] = 1u;
                                 }
                                }
                               }
                              }
                             }
                            }
                           }
                          }
                         }
                        }
                       }
                      }
                     }
                    }
                   }
                  }
                 }
                }
               }
              }
             }
            }
           }
          }
         }
        }
       }
      }
     }
    }
   }
  }
 }
}
