#include "spec/load_lms.h"

#include "base/alloc.h"
#include "base/isotime.h"

#include <stdlib.h>
#include <string.h>

static const char *const late_keys[] = {"deadline", "grace", "per_day", "cap", "max_days", NULL};
static const char *const gradescope_keys[] = {"hidden_visibility", "leaderboard", NULL};
static const char *const visibility_names[] = {"after_due_date", "after_published", "hidden",
                                               "visible", NULL};

static int load_grace(struct loader *ld, const yaml_node_t *n, double *grace_s)
{
    char *grace = NULL;
    if (ld_get_string(ld, n, "'late.grace'", &grace))
        return -1;
    bool ok = duration_parse(grace, grace_s);
    free(grace);
    return ok ? 0 : ld_fail(ld, n, "'late.grace' must be a length of time like 15m, 2h or 1d");
}

/* late: {deadline, grace, per_day, cap, max_days} */
static int load_late(struct loader *ld, const yaml_node_t *m, struct late_spec *l)
{
    yaml_node_t *n;
    if (ld_want_mapping(ld, m, "'late'") || ld_check_keys(ld, m, "in 'late'", late_keys))
        return -1;
    l->set = true;
    l->loc = ld_loc_of(m);
    l->cap = 100;
    if (ld_need(ld, m, "deadline", "in 'late'", &n) ||
        ld_get_string(ld, n, "'late.deadline'", &l->deadline))
        return -1;
    if (!iso_time_parse(l->deadline, &l->deadline_s))
        return ld_fail(ld, n,
                       "'late.deadline' must be a date and time like 2026-03-02T23:59:00+01:00, "
                       "got '%s'",
                       l->deadline);
    if ((n = ld_map_get(ld, m, "grace")) && load_grace(ld, n, &l->grace_s))
        return -1;
    if ((n = ld_map_get(ld, m, "per_day")) &&
        ld_get_number_min(ld, n, "'late.per_day'", 0, false, &l->per_day))
        return -1;
    if ((n = ld_map_get(ld, m, "cap")) && ld_get_number_min(ld, n, "'late.cap'", 0, false, &l->cap))
        return -1;
    if (l->per_day > 100 || l->cap > 100)
        return ld_fail_loc(ld, l->loc,
                           "'late.per_day' and 'late.cap' are percentages: at most 100");
    if ((n = ld_map_get(ld, m, "max_days")) &&
        ld_get_number_min(ld, n, "'late.max_days'", 0, false, &l->max_days))
        return -1;
    return 0;
}

/* gradescope: {hidden_visibility, leaderboard} */
static int load_gradescope(struct loader *ld, const yaml_node_t *m, struct gradescope_spec *g)
{
    yaml_node_t *n;
    int e;
    if (ld_want_mapping(ld, m, "'gradescope'") ||
        ld_check_keys(ld, m, "in 'gradescope'", gradescope_keys))
        return -1;
    if ((n = ld_map_get(ld, m, "hidden_visibility"))) {
        if (ld_get_enum(ld, n, "hidden_visibility", visibility_names, &e))
            return -1;
        free(g->hidden_visibility);
        g->hidden_visibility = xstrdup(visibility_names[e]);
    }
    if ((n = ld_map_get(ld, m, "leaderboard")) &&
        ld_get_bool(ld, n, "'gradescope.leaderboard'", &g->leaderboard))
        return -1;
    return 0;
}

int load_lms_keys(struct loader *ld, const yaml_node_t *m, struct lab *lab)
{
    yaml_node_t *n;
    lab->gradescope.hidden_visibility = xstrdup("after_due_date");
    lab->gradescope.leaderboard = true;
    if ((n = ld_map_get(ld, m, "late")) && load_late(ld, n, &lab->late))
        return -1;
    if ((n = ld_map_get(ld, m, "gradescope")) && load_gradescope(ld, n, &lab->gradescope))
        return -1;
    return 0;
}
