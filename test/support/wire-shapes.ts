/**
 * The shapes of every answer of the service, checked strictly (a missing or extra field fails),
 * shared by the in-process suite and the tests that drive the real process. They are the same
 * schemas the OpenAPI document is generated from.
 */
export {
  contextList,
  DATE_TIME,
  entriesOf,
  projectList,
  taskList,
  wireContext,
  wireError,
  wireProject,
  wireSettings,
  wireTask,
  type TaskList,
  type WireContext,
  type WireProject,
  type WireSettings,
  type WireTask,
} from '../../src/http/wire/shapes.js';
