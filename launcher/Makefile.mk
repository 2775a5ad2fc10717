# launcher/: what starts a job, on top of every layer: mpcrun (and mpiexec), mpicc, and the
# main() that mpicc links into every executable.

# Linked into every executable mpicc makes: main() hands over to the runtime.
pkglib_LIBRARIES += launcher/libthreadmpi_launcher.a
launcher_libthreadmpi_launcher_a_SOURCES = launcher/main.c
launcher_libthreadmpi_launcher_a_CFLAGS = $(AM_CFLAGS)

bin_PROGRAMS += launcher/mpcrun
# mpcrun is a plain program, not linked with libthreadmpi: it compiles what it shares with the
# job (settings, placement) and the model it prints (--split-model) itself.
launcher_mpcrun_SOURCES = launcher/mpcrun.c launcher/hosts.c launcher/hosts.h \
	launcher/remote.c launcher/remote.h launcher/channel.c launcher/channel.h \
	runtime/elf_section.c runtime/elf_section.h \
	runtime/maps.c runtime/maps.h \
	runtime/settings.c runtime/settings.h runtime/placement.c runtime/placement.h \
	nbc/model.c nbc/model.h
launcher_mpcrun_CPPFLAGS = $(AM_CPPFLAGS) -DTM_SYSCONFDIR='"$(sysconfdir)"' \
	-DTM_PKGLIBEXECDIR='"$(pkglibexecdir)"'
launcher_mpcrun_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS) $(INIH_CFLAGS)
launcher_mpcrun_LDADD = $(HWLOC_LIBS) $(INIH_LIBS)

# What mpcrun --hosts starts on each host (agent.c); mpcrun finds it beside itself in the build
# tree, else in pkglibexecdir.
pkglibexec_PROGRAMS += launcher/tm-agent
launcher_tm_agent_SOURCES = launcher/agent.c launcher/agent_pmix.c launcher/agent_pmix.h \
	launcher/channel.c launcher/channel.h
launcher_tm_agent_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS)
launcher_tm_agent_LDADD = $(PMIX_LIBS)

# The installed threadmpi.conf documents every setting and sets none: it is what
# mpcrun --help-config prints.
sysconf_DATA += launcher/threadmpi.conf
CLEANFILES += launcher/threadmpi.conf
launcher/threadmpi.conf: launcher/mpcrun$(EXEEXT)
	$(AM_V_GEN)$(MKDIR_P) launcher && launcher/mpcrun$(EXEEXT) --help-config > $@.tmp && mv $@.tmp $@

# mpicc: the installed one knows the installation directories; the build-tree one
# (tests/mpicc-build) points at the build tree, for the tests.
bin_SCRIPTS += launcher/mpicc
noinst_SCRIPTS += tests/mpicc-build
CLEANFILES += launcher/mpicc tests/mpicc-build
EXTRA_DIST += launcher/mpicc.in

tm_mpicc_subst = sed \
	-e 's|@TM_CC[@]|$(CC)|g' \
	-e 's|@TM_SANITIZE_FLAGS[@]|$(TM_SANITIZE_FLAGS)|g' \
	-e 's|@TM_OBJCOPY[@]|$(OBJCOPY)|g' \
	-e 's|@TM_VERSION[@]|$(PACKAGE_VERSION)|g'

launcher/mpicc: $(srcdir)/launcher/mpicc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) launcher && $(tm_mpicc_subst) \
	    -e 's|@TM_INCLUDEDIR[@]|$(includedir)|g' \
	    -e 's|@TM_LIBDIR[@]|$(libdir)|g' \
	    -e 's|@TM_RANKLIBDIR[@]|$(pkglibdir)|g' \
	    -e 's|@TM_LAUNCHERLIBDIR[@]|$(pkglibdir)|g' \
	    $(srcdir)/launcher/mpicc.in > $@ && chmod +x $@

tests/mpicc-build: $(srcdir)/launcher/mpicc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tests && $(tm_mpicc_subst) \
	    -e 's|@TM_INCLUDEDIR[@]|$(abs_top_srcdir)/include|g' \
	    -e 's|@TM_LIBDIR[@]|$(abs_top_builddir)/.libs|g' \
	    -e 's|@TM_RANKLIBDIR[@]|$(abs_top_builddir)/runtime|g' \
	    -e 's|@TM_LAUNCHERLIBDIR[@]|$(abs_top_builddir)/launcher|g' \
	    $(srcdir)/launcher/mpicc.in > $@ && chmod +x $@

# mpiexec is mpcrun under its standard name.
install-exec-hook:
	cd $(DESTDIR)$(bindir) && rm -f mpiexec$(EXEEXT) && $(LN_S) mpcrun$(EXEEXT) mpiexec$(EXEEXT)
uninstall-hook:
	rm -f $(DESTDIR)$(bindir)/mpiexec$(EXEEXT)
