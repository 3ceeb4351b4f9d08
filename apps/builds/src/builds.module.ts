import { Module } from '@nestjs/common';
import { BuildsService } from './builds.service';

@Module({ providers: [BuildsService], exports: [BuildsService] })
export class BuildsModule {}
