import { openapiSuite } from '../../suites/openapi.suite';
import { testApp } from '../../support/harness';

openapiSuite(() => testApp());
