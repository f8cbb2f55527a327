import { ENUMERATIONS } from '../../core/resources';
import { enumerationPath } from '../../openapi/names';
import type { VersionChange } from '../version';

const routes = ENUMERATIONS.map(({ parent, child }) => `\`/${parent}/{id}/${child}\``).join(', ');

export const noEnumerations: VersionChange = {
  name: 'no-enumerations',
  description: `The enumeration routes new in v2 (${routes}) do not exist: they answer 404.`,
  withoutEnumerations: true,
  describe(doc) {
    for (const enumeration of ENUMERATIONS) delete doc.paths[enumerationPath(enumeration)];
  },
};
