; The golden example of YOLO (Radul et al., POPL 2023, §2): f(u) = -sin(u).
; Linearize marks the linear half; unzip saves cos(u) in %f.tape and leaves
; f.lin = -(cos(u) * du); transposition gives f.rev = -(ct) * cos(u).
; RUN: %opt -passes=ad-linearize,ad-verify %s -S | FileCheck %s --check-prefix=JVP
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-verify %s -S | FileCheck %s --check-prefix=UNZIP
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s --check-prefix=REV

declare double @__ad_gradient(ptr, ...)
declare double @llvm.sin.f64(double)

define double @f(double %u) {
  %s = call double @llvm.sin.f64(double %u)
  %r = fneg double %s
  ret double %r
}

define double @grad(double %u) {
  %g = call double (ptr, ...) @__ad_gradient(ptr @f, double %u)
  ret double %g
}

; JVP-LABEL: define internal { double, double } @f.jvp(double %u, double %du)
; JVP-NEXT:    %s = call double @llvm.sin.f64(double %u)
; JVP-NEXT:    [[COS:%.*]] = call double @llvm.cos.f64(double %u)
; JVP-NOT:     !ad.linear
; JVP-NEXT:    [[T:%.*]] = fmul double [[COS]], %du, !ad.linear
; JVP-NEXT:    %r = fneg double %s
; JVP-NEXT:    [[DR:%.*]] = fneg double [[T]], !ad.linear
; JVP-NEXT:    [[P:%.*]] = insertvalue { double, double } poison, double %r, 0
; JVP-NEXT:    [[PD:%.*]] = insertvalue { double, double } [[P]], double [[DR]], 1, !ad.linear
; JVP-NEXT:    ret { double, double } [[PD]]

; UNZIP: %f.tape = type { double }
; UNZIP-LABEL: define internal double @f.fwd(double %u, ptr noalias %tape)
; UNZIP-NEXT:    %s = call double @llvm.sin.f64(double %u)
; UNZIP-NEXT:    [[COS:%.*]] = call double @llvm.cos.f64(double %u)
; UNZIP-NEXT:    [[SLOT:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr %tape, i32 0, i32 0
; UNZIP-NEXT:    store double [[COS]], ptr [[SLOT]]
; UNZIP-NEXT:    %r = fneg double %s
; UNZIP-NEXT:    ret double %r
; UNZIP-LABEL: define internal double @f.lin(ptr %tape, double %du)
; UNZIP-NEXT:    [[SLOT:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr %tape, i32 0, i32 0
; UNZIP-NEXT:    [[COS:%.*]] = load double, ptr [[SLOT]], align 8, !ad.static
; UNZIP-NEXT:    [[T:%.*]] = fmul double [[COS]], %du, !ad.linear
; UNZIP-NEXT:    [[DR:%.*]] = fneg double [[T]], !ad.linear
; UNZIP-NEXT:    ret double [[DR]]

; REV-LABEL: define internal double @f.rev(ptr %tape, double %ct)
; REV:         [[NEG:%.*]] = fsub double -0.000000e+00, %ct
; REV-NEXT:    [[COS:%.*]] = load double, ptr %tape
; REV-NEXT:    [[G:%.*]] = fmul double [[NEG]], [[COS]]
; REV-NEXT:    [[OUT:%.*]] = fadd double [[G]], 0.000000e+00
; REV-NEXT:    ret double [[OUT]]
