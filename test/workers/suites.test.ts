/**
 * The runtime-neutral behavioural suites (test/suites), run against the worker entry inside
 * workerd. Adding a suite to the edge run is one line here.
 */
import { smokeSuite } from '../suites/smoke.suite';
import { workerClient } from './client';

smokeSuite(workerClient);
