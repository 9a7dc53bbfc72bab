/*
 * conda_owner: a DLL a finding is about, traced to the conda package that
 * installed it.
 *
 * In a conda environment (a prefix with conda-meta\), the DLL at fault is
 * often another conda package's: an OpenMP runtime (`intel-openmp`,
 * `llvm-openmp`: ilastik/ilastik#2927, robotology/robotology-superbuild#1702,
 * pytorch/pytorch#72293), the VC++ runtime (`vc14_runtime`, `ucrt`). Its
 * owner, read from conda-meta (machine/conda_meta), is named in the
 * finding's explanation ("libiomp5md.dll comes from conda package
 * intel-openmp 2021.4.0 (conda-forge)") and in its fix: that package is what
 * conda changes, not the DLL. Records conda-meta could not read are said in
 * one conda-meta-unreadable note.
 */
#ifndef TDC_CONDA_OWNER_H
#define TDC_CONDA_OWNER_H

#include "judge/finding.h"
#include "loader/torchload.h"
#include "machine/inventory.h"
#include "machine/view.h"

/* Traces this install's findings' DLLs to their conda packages (nothing outside a conda environment). */
void conda_owner_judge(struct findings *out, const struct torch_run *run, struct view *v,
		       const struct inv_install *install);

#endif
