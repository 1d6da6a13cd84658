// A probe of the whisper.cpp library alone (no speak): loads a model, transcribes one 16 kHz mono
// 16-bit WAV (a plain 44-byte header) N times with speak's decoding options (greedy, language en, no_context, suppress_nst,
// flash attention off) and prints each run's seconds; CPUT=1 prints process CPU time instead.
// Build against a library directory and run, e.g.:
//   L=/usr/local/lib/speak/whisper
//   cc -O2 Benchmarks/whisper-kernels.c -I$L/include -L$L/lib -lwhisper -Wl,-rpath,$L/lib -o /tmp/whisper-kernels
//   /tmp/whisper-kernels /usr/local/share/speak/models/ggml-base.bin clip.wav 5 640 2   # runs audio_ctx threads
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "whisper.h"
static double now(void){struct timespec t;clock_gettime(getenv("CPUT")?CLOCK_PROCESS_CPUTIME_ID:CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(int argc,char**argv){
  const char*model=argv[1]; const char*wav=argv[2]; int n=atoi(argv[3]); int actx=argc>4?atoi(argv[4]):0; int thr=argc>5?atoi(argv[5]):2;
  FILE*f=fopen(wav,"rb"); fseek(f,0,SEEK_END); long sz=ftell(f); fseek(f,44,SEEK_SET);
  int ns=(sz-44)/2; short*s=malloc(sz); fread(s,2,ns,f); fclose(f);
  float*pcm=malloc(ns*4); for(int i=0;i<ns;i++)pcm[i]=s[i]/32768.0f;
  struct whisper_context_params cp=whisper_context_default_params(); cp.flash_attn=0; cp.use_gpu=0;
  double t0=now(); struct whisper_context*ctx=whisper_init_from_file_with_params(model,cp); fprintf(stderr,"load %.3f\n",now()-t0);
  for(int i=0;i<n;i++){
    struct whisper_full_params p=whisper_full_default_params(WHISPER_SAMPLING_GREEDY);
    p.n_threads=thr; p.language="en"; p.no_context=1; p.print_progress=0; p.print_realtime=0; p.print_timestamps=0; p.audio_ctx=actx; p.suppress_nst=1;
    double t=now(); whisper_full(ctx,p,pcm,ns);
    fprintf(stderr,"run %d %.3f s: %s\n",i,now()-t,whisper_full_get_segment_text(ctx,0));
  }
  whisper_print_timings(ctx);
  return 0;
}
