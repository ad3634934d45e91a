; Derived blocks longer than -ad-outline-block-threshold instructions are cut
; into runs of -ad-outline-run-length, and every run but the last moves into
; a function of its own (pass/codegen/OutlineLongBlocks.h): the SLP vectorizer and
; the machine scheduler are quadratic in block length. Only at -O1 and
; above, last in the ad pass: the runs are noinline, and they are not
; derived functions themselves (no ad-kind attributes; ad-holds-derived-code
; instead, for the SLP guard, test/pipeline/slp-guard.ll). Small limits here; the
; defaults (8000, 3000) leave this f alone.
;   double f(double *v) { v[3] = v[1] + v[2] * v[5]; v[0] = v[3] + v[4] * v[7];
;     v[6] = v[0] + v[3] * v[3]; v[2] = v[6] + v[0] * v[1]; return v[2] * v[0]; }
; RUN: %opt -passes='ad<O2>' -ad-outline-block-threshold=30 -ad-outline-run-length=20 %s -S | FileCheck %s
; RUN: %opt -passes='ad<O2>' %s -S | FileCheck %s --check-prefix=NONE
; RUN: %opt -passes='ad<O2>' -ad-outline-block-threshold=0 -ad-outline-run-length=20 %s -S | FileCheck %s --check-prefix=NONE
; RUN: %opt -passes=ad -ad-outline-block-threshold=30 -ad-outline-run-length=20 %s -S | FileCheck %s --check-prefix=NONE
; RUN: %opt -passes='ad<O2>' -ad-outline-block-threshold=30 -ad-outline-run-length=20 %s -S | FileCheck %s --check-prefix=OPTNONE
; RUN: %opt -passes='ad<O2>' -ad-outline-block-threshold=30 -ad-outline-run-length=20 %s -S | FileCheck %s --check-prefix=STACK

declare double @__ad_gradient(ptr, ...)

define double @f(ptr %v) {
  %p1 = getelementptr inbounds i8, ptr %v, i64 8
  %v1 = load double, ptr %p1
  %p2 = getelementptr inbounds i8, ptr %v, i64 16
  %v2 = load double, ptr %p2
  %p5 = getelementptr inbounds i8, ptr %v, i64 40
  %v5 = load double, ptr %p5
  %m1 = fmul double %v2, %v5
  %a1 = fadd double %v1, %m1
  %p3 = getelementptr inbounds i8, ptr %v, i64 24
  store double %a1, ptr %p3
  %p4 = getelementptr inbounds i8, ptr %v, i64 32
  %v4 = load double, ptr %p4
  %p7 = getelementptr inbounds i8, ptr %v, i64 56
  %v7 = load double, ptr %p7
  %m2 = fmul double %v4, %v7
  %a2 = fadd double %a1, %m2
  store double %a2, ptr %v
  %m3 = fmul double %a1, %a1
  %a3 = fadd double %m3, %a2
  %p6 = getelementptr inbounds i8, ptr %v, i64 48
  store double %a3, ptr %p6
  %m4 = fmul double %v1, %a2
  %a4 = fadd double %a3, %m4
  store double %a4, ptr %p2
  %r = fmul double %a2, %a4
  ret double %r
}
define void @g(ptr %v, ptr %dv) {
  call double (ptr, ...) @__ad_gradient(ptr @f, ptr %v, ptr %dv)
  ret void
}

; A caller the user marked optnone keeps its long block (41 instructions).
define double @g_optnone(double %x, ptr %v, ptr %dv) #0 {
  call double (ptr, ...) @__ad_gradient(ptr @f, ptr %v, ptr %dv)
  %a0 = fadd double %x, 1.0
  %a1 = fmul double %a0, %x
  %a2 = fmul double %a1, %x
  %a3 = fmul double %a2, %x
  %a4 = fmul double %a3, %x
  %a5 = fmul double %a4, %x
  %a6 = fmul double %a5, %x
  %a7 = fmul double %a6, %x
  %a8 = fmul double %a7, %x
  %a9 = fmul double %a8, %x
  %a10 = fmul double %a9, %x
  %a11 = fmul double %a10, %x
  %a12 = fmul double %a11, %x
  %a13 = fmul double %a12, %x
  %a14 = fmul double %a13, %x
  %a15 = fmul double %a14, %x
  %a16 = fmul double %a15, %x
  %a17 = fmul double %a16, %x
  %a18 = fmul double %a17, %x
  %a19 = fmul double %a18, %x
  %a20 = fmul double %a19, %x
  %a21 = fmul double %a20, %x
  %a22 = fmul double %a21, %x
  %a23 = fmul double %a22, %x
  %a24 = fmul double %a23, %x
  %a25 = fmul double %a24, %x
  %a26 = fmul double %a25, %x
  %a27 = fmul double %a26, %x
  %a28 = fmul double %a27, %x
  %a29 = fmul double %a28, %x
  %a30 = fmul double %a29, %x
  %a31 = fmul double %a30, %x
  %a32 = fmul double %a31, %x
  %a33 = fmul double %a32, %x
  %a34 = fmul double %a33, %x
  %a35 = fmul double %a34, %x
  %a36 = fmul double %a35, %x
  %a37 = fmul double %a36, %x
  %a38 = fmul double %a37, %x
  %a39 = fmul double %a38, %x
  %a40 = fmul double %a39, %x
  ret double %a40
}

attributes #0 = { noinline optnone }

; A run that saves or restores the stack pointer means something only in its
; own frame: it stays (the middle run of g_stack's 45 instructions).
define double @g_stack(double %x, ptr %v, ptr %dv) {
  call double (ptr, ...) @__ad_gradient(ptr @f, ptr %v, ptr %dv)
  %b0 = fadd double %x, 1.0
  %b1 = fmul double %b0, %x
  %b2 = fmul double %b1, %x
  %b3 = fmul double %b2, %x
  %b4 = fmul double %b3, %x
  %b5 = fmul double %b4, %x
  %b6 = fmul double %b5, %x
  %b7 = fmul double %b6, %x
  %b8 = fmul double %b7, %x
  %b9 = fmul double %b8, %x
  %b10 = fmul double %b9, %x
  %b11 = fmul double %b10, %x
  %b12 = fmul double %b11, %x
  %b13 = fmul double %b12, %x
  %b14 = fmul double %b13, %x
  %b15 = fmul double %b14, %x
  %b16 = fmul double %b15, %x
  %b17 = fmul double %b16, %x
  %b18 = fmul double %b17, %x
  %b19 = fmul double %b18, %x
  %b20 = fmul double %b19, %x
  %b21 = fmul double %b20, %x
  %b22 = fmul double %b21, %x
  %b23 = fmul double %b22, %x
  %b24 = fmul double %b23, %x
  %sp = call ptr @llvm.stacksave.p0()
  %b25 = fmul double %b24, %x
  %b26 = fmul double %b25, %x
  %b27 = fmul double %b26, %x
  %b28 = fmul double %b27, %x
  %b29 = fmul double %b28, %x
  call void @llvm.stackrestore.p0(ptr %sp)
  %b30 = fmul double %b29, %x
  %b31 = fmul double %b30, %x
  %b32 = fmul double %b31, %x
  %b33 = fmul double %b32, %x
  %b34 = fmul double %b33, %x
  %b35 = fmul double %b34, %x
  %b36 = fmul double %b35, %x
  %b37 = fmul double %b36, %x
  %b38 = fmul double %b37, %x
  %b39 = fmul double %b38, %x
  %b40 = fmul double %b39, %x
  ret double %b40
}

declare ptr @llvm.stacksave.p0()
declare void @llvm.stackrestore.p0(ptr)

; f.fwd's one block of 44 instructions is cut into runs of 20, 20 and 4:
; the first stays (it begins the block, where phis and allocas are), the
; second is outlined, its results returned through memory, the last stays
; (it ends in the block's terminator). f.rev (65) has two middle runs.
; Addresses at constant offsets (%p3, the shadow cells, tape fields) are
; recomputed in each run, not passed: a run gets the base pointers.
; CHECK-LABEL: define internal double @f.fwd(
; CHECK:         call void @f.fwd.run(ptr %v, double %a1, ptr %tape, double %v1, ptr %a2.loc, ptr %a4.loc)
; CHECK:         ret double %r
; CHECK-LABEL: define internal void @f.rev(
; CHECK:         call void @f.rev.run(
; CHECK-NOT:     shadow
; CHECK-SAME:    ){{$}}
; CHECK:         call void @f.rev.run.1(
; CHECK-NOT:     shadow
; CHECK-SAME:    ){{$}}
; CHECK:         ret void
; CHECK-LABEL: define internal void @f.fwd.run(
; CHECK-SAME:    #[[PART:[0-9]+]]
; CHECK:         store double
; CHECK:         ret void
; CHECK-LABEL: define internal void @f.rev.run(
; CHECK-SAME:    #[[PART]]
; CHECK-LABEL: define internal void @f.rev.run.1(
; CHECK-SAME:    #[[PART]]
; CHECK:       attributes #[[PART]] = { noinline "ad-holds-derived-code" }

; NONE-NOT: .run

; OPTNONE:     define double @g_optnone(
; OPTNONE-NOT: call {{.*}}@g_optnone.run
; OPTNONE:       ret double %a40
; OPTNONE-NOT: define {{.*}}@g_optnone.run

; STACK:     define double @g_stack(
; STACK-NOT: call {{.*}}@g_stack.run
; STACK:       call ptr @llvm.stacksave.p0()
; STACK:       ret double %b40
; STACK-NOT: define {{.*}}@g_stack.run
