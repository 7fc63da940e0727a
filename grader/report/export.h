/*
 * export: grades in the formats other systems import, written from results
 * (never by re-running anything), each file written atomically:
 *   gradebook.h   gradebook.csv, Canvas's and Moodle's imports, Moodle's offline
 *                 grading worksheet
 *   gradescope.h  Gradescope's autograder results.json
 *   junit.h       JUnit XML for CI dashboards
 * export_text.h has what they share. docs/exports.md says how to import each file
 * and which code of the receiving system each rule comes from.
 */
#ifndef LG_EXPORT_H
#define LG_EXPORT_H

#include "report/gradebook.h"
#include "report/gradescope.h"
#include "report/junit.h"

#endif
