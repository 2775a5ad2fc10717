/*
 * The names of the MPI calls in the profiler's report (profile_calls.h), given to the runtime when
 * the library is loaded, before any rank runs.
 */
#include "config.h"

#include "profile_calls.h"

static const char *const call_names[] = {
#define CALL_NAME(name, text, comp) text,
    TM_MPI_PROFILE_CALLS(CALL_NAME)
#undef CALL_NAME
};

__attribute__((constructor)) static void profile_calls_name(void)
{
    tm_rt_profile_name_kinds(TM_RT_PROFILE_FIRST_CALL, call_names,
                             (int)(sizeof call_names / sizeof call_names[0]));
}
