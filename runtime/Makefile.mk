# runtime/: start-up and shutdown, privatization, signals, config, mpcrun and mpicc.

noinst_LTLIBRARIES += runtime/libtmrt.la
runtime_libtmrt_la_CFLAGS = $(TM_LIB_CFLAGS)
runtime_libtmrt_la_SOURCES = \
	runtime/rank.h \
	runtime/job.h \
	runtime/job.c \
	runtime/program.h \
	runtime/program.c \
	runtime/elf_section.h \
	runtime/elf_section.c \
	runtime/signals.h \
	runtime/signals.c \
	runtime/settings.h \
	runtime/settings.c \
	runtime/placement.h \
	runtime/placement.c \
	runtime/profile.h \
	runtime/profile_clock.h \
	runtime/profile.c

# Linked into every executable mpicc makes: main() hands over to the runtime.
pkglib_LIBRARIES += runtime/libthreadmpi_launcher.a
runtime_libthreadmpi_launcher_a_SOURCES = runtime/launcher.c
runtime_libthreadmpi_launcher_a_CFLAGS = $(AM_CFLAGS)

# Linked into the program's shared object, so into each rank's private copy: exit() and the
# standard-input functions of a rank go through the runtime.
pkglib_LIBRARIES += runtime/libthreadmpi_rank.a
runtime_libthreadmpi_rank_a_SOURCES = runtime/rank_hooks.c
runtime_libthreadmpi_rank_a_CFLAGS = $(AM_CFLAGS) -fPIC

bin_PROGRAMS += runtime/mpcrun
# mpcrun is a plain program, not linked with libthreadmpi: it compiles what it shares with the
# job (settings, placement) and the model it prints (--split-model) itself.
runtime_mpcrun_SOURCES = runtime/mpcrun.c runtime/elf_section.c runtime/elf_section.h \
	runtime/settings.c runtime/settings.h runtime/placement.c runtime/placement.h \
	nbc/model.c nbc/model.h
runtime_mpcrun_CPPFLAGS = $(AM_CPPFLAGS) -DTM_SYSCONFDIR='"$(sysconfdir)"'
runtime_mpcrun_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS) $(INIH_CFLAGS)
runtime_mpcrun_LDADD = $(HWLOC_LIBS) $(INIH_LIBS)

# The installed threadmpi.conf documents every setting and sets none: it is what
# mpcrun --help-config prints.
sysconf_DATA += runtime/threadmpi.conf
CLEANFILES += runtime/threadmpi.conf
runtime/threadmpi.conf: runtime/mpcrun$(EXEEXT)
	$(AM_V_GEN)$(MKDIR_P) runtime && runtime/mpcrun$(EXEEXT) --help-config > $@.tmp && mv $@.tmp $@

# mpicc: the installed one knows the installation directories; the build-tree one
# (tests/mpicc-build) points at the build tree, for the tests.
bin_SCRIPTS += runtime/mpicc
noinst_SCRIPTS += tests/mpicc-build
CLEANFILES += runtime/mpicc tests/mpicc-build
EXTRA_DIST += runtime/mpicc.in

tm_mpicc_subst = sed \
	-e 's|@TM_CC[@]|$(CC)|g' \
	-e 's|@TM_SANITIZE_FLAGS[@]|$(TM_SANITIZE_FLAGS)|g' \
	-e 's|@TM_OBJCOPY[@]|$(OBJCOPY)|g' \
	-e 's|@TM_VERSION[@]|$(PACKAGE_VERSION)|g'

runtime/mpicc: $(srcdir)/runtime/mpicc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) runtime && $(tm_mpicc_subst) \
	    -e 's|@TM_INCLUDEDIR[@]|$(includedir)|g' \
	    -e 's|@TM_LIBDIR[@]|$(libdir)|g' \
	    -e 's|@TM_PKGLIBDIR[@]|$(pkglibdir)|g' \
	    $(srcdir)/runtime/mpicc.in > $@ && chmod +x $@

tests/mpicc-build: $(srcdir)/runtime/mpicc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tests && $(tm_mpicc_subst) \
	    -e 's|@TM_INCLUDEDIR[@]|$(abs_top_srcdir)/mpi|g' \
	    -e 's|@TM_LIBDIR[@]|$(abs_top_builddir)/.libs|g' \
	    -e 's|@TM_PKGLIBDIR[@]|$(abs_top_builddir)/runtime|g' \
	    $(srcdir)/runtime/mpicc.in > $@ && chmod +x $@

# mpiexec is mpcrun under its standard name.
install-exec-hook:
	cd $(DESTDIR)$(bindir) && rm -f mpiexec$(EXEEXT) && $(LN_S) mpcrun$(EXEEXT) mpiexec$(EXEEXT)
uninstall-hook:
	rm -f $(DESTDIR)$(bindir)/mpiexec$(EXEEXT)

runtime_libtmrt_la_CPPFLAGS = $(AM_CPPFLAGS) -DTM_SYSCONFDIR='"$(sysconfdir)"'
